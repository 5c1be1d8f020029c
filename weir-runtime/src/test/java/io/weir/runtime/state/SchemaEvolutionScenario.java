package io.weir.runtime.state;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.weir.api.CheckpointStatistics;
import io.weir.api.ExternalizedCheckpointRetention;
import io.weir.api.JobClient;
import io.weir.api.JobStatus;
import io.weir.api.RestartStrategy;
import io.weir.api.StreamEnvironment;
import io.weir.api.config.CheckpointingOptions;
import io.weir.api.functions.CheckpointedFunction;
import io.weir.api.functions.Collector;
import io.weir.api.functions.KeyedProcessFunction;
import io.weir.api.functions.OpenContext;
import io.weir.api.functions.RichMapFunction;
import io.weir.api.state.FunctionInitializationContext;
import io.weir.api.state.FunctionSnapshotContext;
import io.weir.api.state.ListState;
import io.weir.api.state.ListStateDescriptor;
import io.weir.api.state.StateDescriptor;
import io.weir.api.state.ValueState;
import io.weir.api.state.ValueStateDescriptor;
import io.weir.api.typeutils.TypeInformation;
import io.weir.api.typeutils.Types;
import io.weir.runtime.api.CollectSink;
import io.weir.runtime.api.UnboundedSource;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.lang.reflect.RecordComponent;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * State schema evolution end to end, through the job API, real backends and real checkpoint files:
 * a job keeps a record (or POJO) {@code evo.Reading} per key in value state and the last one per
 * subtask in operator list state, and is cancelled with its checkpoint retained. The class is then
 * compiled again with other fields and loaded through another class loader, as a new deployment of
 * the job would, and a job resumed from that checkpoint must find every count with the new fields'
 * defaults, or, for a change that cannot be migrated, be refused at submission before any task runs
 * and without writing a checkpoint. Subclasses choose the state backend.
 */
@Timeout(120)
public abstract class SchemaEvolutionScenario {

  static final String CLASS = "evo.Reading";
  static final int KEYS = 5;
  static final long FIRST = 60;

  @TempDir Path dir;

  /** Sets the state backend of the jobs. */
  protected abstract void configureBackend(StreamEnvironment env, Path localDir);

  // --- the versions of evo.Reading ---

  static final String RECORD_V1 =
      "package evo; public record Reading(String key, long count, String note) {}";
  static final String RECORD_GAINED =
      "package evo; public record Reading(String key, long count, String note, Long extra) {}";
  static final String RECORD_LOST = "package evo; public record Reading(String key, long count) {}";
  static final String RECORD_BOXED =
      "package evo; public record Reading(String key, Long count, String note) {}";
  static final String RECORD_INCOMPATIBLE =
      "package evo; public record Reading(String key, String count, String note) {}";

  static final String POJO_V1 =
      "package evo; public class Reading { public String key; public long count;"
          + " public String note; public Reading() {} }";
  static final String POJO_GAINED =
      "package evo; public class Reading { public String key; public long count;"
          + " public String note; public int unit = 7; public Reading() {} }";
  static final String POJO_LOST =
      "package evo; public class Reading { public String key; public long count;"
          + " public Reading() {} }";
  static final String POJO_INCOMPATIBLE =
      "package evo; public class Reading { public String key; public double count;"
          + " public String note; public Reading() {} }";

  @Test
  void aRecordThatGainedAComponentRestoresWithItsDefault() throws Exception {
    Path retained = runV1(RECORD_V1, false);
    Map<Long, String> resumed = resume(retained, RECORD_GAINED, false);
    for (long key = 0; key < KEYS; key++) {
      assertThat(resumed.get(key))
          .isEqualTo("count=" + (expected(key) + 1) + ",extra=null,key=" + key + ",note=n");
    }
    assertThat(resumed.get(-1L))
        .as("operator list state, migrated")
        .isEqualTo(
            "count="
                + expected((FIRST - 1) % KEYS)
                + ",extra=null,key="
                + (FIRST - 1) % KEYS
                + ",note=n");
  }

  @Test
  void aRecordThatLostAComponentRestoresWithoutIt() throws Exception {
    Path retained = runV1(RECORD_V1, false);
    Map<Long, String> resumed = resume(retained, RECORD_LOST, false);
    for (long key = 0; key < KEYS; key++) {
      assertThat(resumed.get(key)).isEqualTo("count=" + (expected(key) + 1) + ",key=" + key);
    }
  }

  @Test
  void aRecordWhoseComponentWasBoxedRestores() throws Exception {
    Path retained = runV1(RECORD_V1, false);
    Map<Long, String> resumed = resume(retained, RECORD_BOXED, false);
    for (long key = 0; key < KEYS; key++) {
      assertThat(resumed.get(key))
          .isEqualTo("count=" + (expected(key) + 1) + ",key=" + key + ",note=n");
    }
  }

  @Test
  void aPojoThatGainedAFieldRestoresWithItsInitializer() throws Exception {
    Path retained = runV1(POJO_V1, true);
    Map<Long, String> resumed = resume(retained, POJO_GAINED, true);
    for (long key = 0; key < KEYS; key++) {
      assertThat(resumed.get(key))
          .isEqualTo("count=" + (expected(key) + 1) + ",key=" + key + ",note=n,unit=7");
    }
  }

  @Test
  void aPojoThatLostAFieldRestoresWithoutIt() throws Exception {
    Path retained = runV1(POJO_V1, true);
    Map<Long, String> resumed = resume(retained, POJO_LOST, true);
    for (long key = 0; key < KEYS; key++) {
      assertThat(resumed.get(key)).isEqualTo("count=" + (expected(key) + 1) + ",key=" + key);
    }
  }

  /**
   * Before Weir inferred POJOs a class such as {@code evo.Reading} without {@code Types.POJO} was
   * written with Kryo; the same job now infers it as a POJO and must restore that state, migrated.
   */
  @Test
  void aPojoThatKryoWroteRestoresAsAnInferredPojo() throws Exception {
    ClassLoader v1 = ClassVersions.compile(dir.resolve("v1"), CLASS, POJO_V1);
    StreamEnvironment first = firstEnv();
    CollectSink<String> firstSink = new CollectSink<>();
    pipeline(
        first,
        UnboundedSource.emitting(FIRST, 0),
        new ReadingCounter(Shape.KRYO, Declares.BOTH),
        new OpenCounter(),
        firstSink);
    Path retained = runToRetained(first, firstSink, FIRST, v1);

    ClassLoader v2 = ClassVersions.compile(dir.resolve("v2"), CLASS, POJO_V1);
    assertThat(withLoader(v2, () -> TypeInformation.of(Shapes.load()).toString()))
        .as("inferred as a POJO, not a GenericType")
        .isEqualTo("Reading");
    Map<Long, String> resumed = resume(retained, v2, Shape.INFERRED);
    for (long key = 0; key < KEYS; key++) {
      assertThat(resumed.get(key))
          .isEqualTo("count=" + (expected(key) + 1) + ",key=" + key + ",note=n");
    }
    long last = (FIRST - 1) % KEYS;
    assertThat(resumed.get(-1L))
        .as("operator list state, migrated")
        .isEqualTo("count=" + expected(last) + ",key=" + last + ",note=n");
  }

  @Test
  void aRecordComponentThatChangedTypeIsRefusedBeforeAnyTaskRuns() throws Exception {
    Path retained = runV1(RECORD_V1, false);
    assertRefused(
        retained, RECORD_INCOMPATIBLE, false, "component 'count'", "count: long", "count: string");
  }

  @Test
  void aPojoFieldThatChangedTypeIsRefusedBeforeAnyTaskRuns() throws Exception {
    Path retained = runV1(POJO_V1, true);
    assertRefused(
        retained, POJO_INCOMPATIBLE, true, "field 'count'", "count: long", "count: double");
  }

  @Test
  void aReduceOverARecordThatGainedAComponentRestoresAndOneThatChangedTypeIsRefused()
      throws Exception {
    ClassLoader v1 = ClassVersions.compile(dir.resolve("reduce-v1"), CLASS, RECORD_V1);
    StreamEnvironment first = firstEnv();
    CollectSink<String> firstSink = new CollectSink<>();
    withLoader(
        v1,
        () ->
            reducePipeline(
                first, UnboundedSource.emitting(FIRST, 0), new OpenCounter(), firstSink));
    Path retained = runToRetained(first, firstSink, FIRST, v1);

    ClassLoader v2 = ClassVersions.compile(dir.resolve("reduce-v2"), CLASS, RECORD_GAINED);
    StreamEnvironment resumed = resumedEnv(retained);
    CollectSink<String> sink = new CollectSink<>();
    withLoader(
        v2,
        () -> reducePipeline(resumed, UnboundedSource.emitting(KEYS, 0), new OpenCounter(), sink));
    JobClient client = withLoader(v2, () -> resumed.executeAsync("reduce-v2"));
    await().atMost(Duration.ofSeconds(60)).until(() -> sink.size() >= KEYS);
    client.cancel().get(30, TimeUnit.SECONDS);
    for (long key = 0; key < KEYS; key++) {
      assertThat(sink.results())
          .contains(key + ":count=" + (expected(key) + 1) + ",extra=null,key=" + key + ",note=n");
    }

    ClassLoader v3 = ClassVersions.compile(dir.resolve("reduce-v3"), CLASS, RECORD_INCOMPATIBLE);
    StreamEnvironment refused = resumedEnv(retained);
    OpenCounter opens = new OpenCounter();
    withLoader(
        v3,
        () ->
            reducePipeline(refused, UnboundedSource.emitting(KEYS, 0), opens, new CollectSink<>()));
    List<String> checkpointsBefore = list(dir.resolve("resumed"));
    assertThatThrownBy(() -> withLoader(v3, () -> refused.executeAsync("reduce-v3")))
        .hasMessageContaining("State '_reduce_state' of operator 'sum (uid sum)'")
        .hasMessageContaining("component 'count'");
    assertThat(opens.count()).isZero();
    assertThat(list(dir.resolve("resumed"))).isEqualTo(checkpointsBefore);
  }

  @Test
  void anUndeclaredStateThatChangedTypeFailsTheJobWhenRegisteredWithoutRestarts() throws Exception {
    Path retained = runV1(RECORD_V1, false);
    ClassLoader loader = ClassVersions.compile(dir.resolve("v2"), CLASS, RECORD_INCOMPATIBLE);
    StreamEnvironment env = resumedEnv(retained);
    env.setRestartStrategy(RestartStrategy.fixedDelay(100, Duration.ofMillis(10)));
    CollectSink<String> sink = new CollectSink<>();
    OpenCounter opens = new OpenCounter();
    pipeline(
        env,
        UnboundedSource.emitting(KEYS, 0),
        new ReadingCounter(Shape.RECORD, Declares.NOTHING),
        opens,
        sink);
    JobClient client = withLoader(loader, () -> env.executeAsync("undeclared"));

    assertThatThrownBy(() -> client.getJobExecutionResult().get(60, TimeUnit.SECONDS))
        // The heap reads values as it restores (state 'reading'), RocksDB when the states are
        // registered, operator state first (state 'last'): either names the state and old type.
        .hasStackTraceContaining(
            "of operator 'counter' cannot be restored: it was written as Reading(key: string"
                + " serializer, count: long serializer, note: string serializer)");
    assertThat(sink.size()).as("no record was processed with the wrong type").isZero();
    assertThat(client.getJobStatus().get()).isEqualTo(JobStatus.FAILED);
    assertThat(opens.count())
        .as("one attempt: a non-recoverable failure is not restarted")
        .isLessThanOrEqualTo(1);
  }

  @Test
  void aStateThatChangedItsKindIsRefusedBeforeAnyTaskRuns() throws Exception {
    Path retained = runV1(RECORD_V1, false);
    ClassLoader loader = ClassVersions.compile(dir.resolve("v2"), CLASS, RECORD_V1);
    StreamEnvironment env = resumedEnv(retained);
    OpenCounter opens = new OpenCounter();
    pipeline(
        env,
        UnboundedSource.emitting(KEYS, 0),
        new ReadingCounter(Shape.RECORD, Declares.READING_AS_LIST),
        opens,
        new CollectSink<>());
    assertThatThrownBy(() -> withLoader(loader, () -> env.executeAsync("kind")))
        .hasMessageContaining(
            "State 'reading' of operator 'counter (uid counter)' was VALUE state in the restored"
                + " checkpoint and the job now declares it as LIST state");
    assertThat(opens.count()).isZero();
  }

  @Test
  void aKeyTypeChangeIsRefusedBeforeAnyTaskRuns() throws Exception {
    Path retained = runV1(RECORD_V1, false);
    StreamEnvironment env = resumedEnv(retained);
    OpenCounter opens = new OpenCounter();
    env.fromSource(UnboundedSource.emitting(KEYS, 0), "numbers", Types.LONG)
        .uid("numbers")
        .map(opens)
        .uid("opens")
        .keyBy(v -> String.valueOf(v % KEYS), Types.STRING)
        .process(new StringKeyed())
        .uid("counter")
        .name("counter")
        .sinkTo(new CollectSink<>());
    assertThatThrownBy(() -> env.executeAsync("changed-key"))
        .hasMessageContaining("The key of operator 'counter (uid counter)' was long serializer")
        .hasMessageContaining("is now string serializer");
    assertThat(opens.count()).isZero();
    assertThat(list(dir.resolve("resumed"))).isEmpty();
  }

  private void assertRefused(
      Path retained, String v2, boolean pojo, String field, String oldType, String newType)
      throws Exception {
    List<String> before = list(retained.getParent());
    ClassLoader loader = ClassVersions.compile(dir.resolve("v2"), CLASS, v2);
    StreamEnvironment env = resumedEnv(retained);
    OpenCounter opens = new OpenCounter();
    CollectSink<String> sink = new CollectSink<>();
    pipeline(env, UnboundedSource.emitting(KEYS, 0), pojo, opens, sink);

    assertThatThrownBy(() -> withLoader(loader, () -> env.executeAsync("incompatible")))
        .hasMessageContaining("State 'reading' of operator 'counter (uid counter)'")
        .hasMessageContaining(field)
        .hasMessageContaining("written as " + (pojo ? "Pojo<Reading>" : "Reading"))
        .hasMessageContaining(oldType)
        .hasMessageContaining(newType);
    assertThat(opens.count()).as("no task ran").isZero();
    assertThat(sink.size()).isZero();
    assertThat(list(dir.resolve("resumed"))).as("nothing written to the checkpoint dir").isEmpty();
    assertThat(list(retained.getParent()))
        .as("the restored checkpoints untouched")
        .isEqualTo(before);
  }

  // --- running the versions ---

  /** Per key, how many of 0 .. FIRST - 1 it has: the count the first job left. */
  static long expected(long key) {
    long n = 0;
    for (long v = 0; v < FIRST; v++) {
      n += v % KEYS == key ? 1 : 0;
    }
    return n;
  }

  /**
   * Runs the first version until every record is counted and a checkpoint triggered after that
   * completed, cancels with the checkpoint retained, and returns the job's checkpoint directory.
   */
  private Path runV1(String source, boolean pojo) throws Exception {
    ClassLoader v1 = ClassVersions.compile(dir.resolve("v1"), CLASS, source);
    StreamEnvironment env = firstEnv();
    CollectSink<String> sink = new CollectSink<>();
    pipeline(env, UnboundedSource.emitting(FIRST, 0), pojo, new OpenCounter(), sink);
    return runToRetained(env, sink, FIRST, v1);
  }

  private StreamEnvironment firstEnv() {
    StreamEnvironment env = StreamEnvironment.create();
    env.setParallelism(1);
    env.setBufferTimeout(Duration.ZERO);
    configureBackend(env, dir.resolve("local-v1"));
    env.enableCheckpointing(Duration.ofMillis(30));
    env.getCheckpointConfig()
        .setCheckpointStorage(dir.resolve("first").toUri().toString())
        .setExternalizedCheckpointRetention(ExternalizedCheckpointRetention.RETAIN_ON_CANCELLATION);
    return env;
  }

  /**
   * Runs the job of {@code env} until {@code sink} has {@code records} and a checkpoint triggered
   * after that completed, cancels it with its checkpoints retained, and returns its job directory.
   */
  private Path runToRetained(
      StreamEnvironment env, CollectSink<String> sink, long records, ClassLoader loader)
      throws Exception {
    JobClient client = withLoader(loader, () -> env.executeAsync("v1"));
    await().atMost(Duration.ofSeconds(60)).until(() -> sink.size() >= records);
    long countedAt = System.currentTimeMillis();
    await()
        .atMost(Duration.ofSeconds(60))
        .until(
            () ->
                client.getCheckpointStatistics().stream()
                    .anyMatch(
                        s ->
                            s.status() == CheckpointStatistics.Status.COMPLETED
                                && s.triggerTimestamp() > countedAt));
    client.cancel().get(30, TimeUnit.SECONDS);
    assertThat(sink.results()).hasSize((int) records);
    return dir.resolve("first").resolve(client.getJobID().value());
  }

  private StreamEnvironment resumedEnv(Path retained) {
    StreamEnvironment env = StreamEnvironment.create();
    env.setParallelism(1);
    env.setBufferTimeout(Duration.ZERO);
    configureBackend(env, dir.resolve("local-v2"));
    env.enableCheckpointing(Duration.ofMillis(30));
    env.getCheckpointConfig().setCheckpointStorage(dir.resolve("resumed").toUri().toString());
    env.getConfiguration().set(CheckpointingOptions.SAVEPOINT_PATH, retained.toUri().toString());
    return env;
  }

  /**
   * Resumes from {@code retained} with {@code v2} and one record per key; returns per key what the
   * counter wrote after the update, and under -1 the restored operator list state.
   */
  private Map<Long, String> resume(Path retained, String v2, boolean pojo) throws Exception {
    ClassLoader loader = ClassVersions.compile(dir.resolve("v2"), CLASS, v2);
    return resume(retained, loader, pojo ? Shape.POJO : Shape.RECORD);
  }

  private Map<Long, String> resume(Path retained, ClassLoader loader, Shape shape)
      throws Exception {
    StreamEnvironment env = resumedEnv(retained);
    CollectSink<String> sink = new CollectSink<>();
    pipeline(
        env,
        UnboundedSource.emitting(KEYS, 0),
        new ReadingCounter(shape, Declares.BOTH),
        new OpenCounter(),
        sink);
    JobClient client = withLoader(loader, () -> env.executeAsync("v2"));
    await().atMost(Duration.ofSeconds(60)).until(() -> sink.size() >= KEYS + 1);
    client.cancel().get(30, TimeUnit.SECONDS);
    Map<Long, String> byKey = new TreeMap<>();
    for (String line : sink.results()) {
      int colon = line.indexOf(':');
      byKey.put(Long.parseLong(line.substring(0, colon)), line.substring(colon + 1));
    }
    assertThat(byKey).hasSize(KEYS + 1);
    return byKey;
  }

  private static void pipeline(
      StreamEnvironment env,
      UnboundedSource source,
      boolean pojo,
      OpenCounter opens,
      CollectSink<String> sink) {
    pipeline(
        env,
        source,
        new ReadingCounter(pojo ? Shape.POJO : Shape.RECORD, Declares.BOTH),
        opens,
        sink);
  }

  private static void pipeline(
      StreamEnvironment env,
      UnboundedSource source,
      ReadingCounter counter,
      OpenCounter opens,
      CollectSink<String> sink) {
    env.fromSource(source, "numbers", Types.LONG)
        .uid("numbers")
        .map(opens)
        .uid("opens")
        .keyBy(v -> v % KEYS, Types.LONG)
        .process(counter)
        .uid("counter")
        .name("counter")
        .sinkTo(sink);
  }

  /** Sums the readings per key with a keyed reduce, whose state is a reading. */
  @SuppressWarnings({"unchecked", "rawtypes"})
  private static Void reducePipeline(
      StreamEnvironment env, UnboundedSource source, OpenCounter opens, CollectSink<String> sink) {
    TypeInformation<Object> type = (TypeInformation) Types.RECORD((Class) Shapes.load());
    env.fromSource(source, "numbers", Types.LONG)
        .uid("numbers")
        .map(opens)
        .uid("opens")
        .map(new ToReading())
        .returns(type)
        .uid("to-reading")
        .keyBy(new ReadingKey(), Types.STRING)
        .reduce(new AddCounts())
        .uid("sum")
        .name("sum")
        .map(new Describe())
        .returns(Types.STRING)
        .uid("describe")
        .sinkTo(sink);
    return null;
  }

  static final class ToReading implements io.weir.api.functions.MapFunction<Long, Object> {
    private static final long serialVersionUID = 1L;

    @Override
    public Object map(Long value) throws Exception {
      return Shapes.increment(null, value % KEYS);
    }
  }

  static final class ReadingKey implements io.weir.api.functions.KeySelector<Object, String> {
    private static final long serialVersionUID = 1L;

    @Override
    public String getKey(Object reading) throws Exception {
      return (String) reading.getClass().getMethod("key").invoke(reading);
    }
  }

  /** The later reading with the counts of both. */
  static final class AddCounts implements io.weir.api.functions.ReduceFunction<Object> {
    private static final long serialVersionUID = 1L;

    @Override
    public Object reduce(Object a, Object b) throws Exception {
      long count = ((Number) a.getClass().getMethod("count").invoke(a)).longValue();
      Object next = b;
      for (long i = 0; i < count; i++) {
        next = Shapes.increment(next, Long.parseLong(new ReadingKey().getKey(b)));
      }
      return next;
    }
  }

  static final class Describe implements io.weir.api.functions.MapFunction<Object, String> {
    private static final long serialVersionUID = 1L;

    @Override
    public String map(Object reading) throws Exception {
      return new ReadingKey().getKey(reading) + ":" + Shapes.describe(reading);
    }
  }

  private static List<String> list(Path dir) throws Exception {
    if (!Files.isDirectory(dir)) {
      return List.of();
    }
    try (Stream<Path> files = Files.walk(dir)) {
      return files.filter(Files::isRegularFile).map(Path::toString).sorted().toList();
    }
  }

  interface Action<T> {
    T run() throws Exception;
  }

  /** Runs {@code action} with {@code loader} as the context class loader: the job's classes. */
  private static <T> T withLoader(ClassLoader loader, Action<T> action) throws Exception {
    Thread thread = Thread.currentThread();
    ClassLoader previous = thread.getContextClassLoader();
    thread.setContextClassLoader(loader);
    try {
      return action.run();
    } finally {
      thread.setContextClassLoader(previous);
    }
  }

  // --- the job's functions ---

  /** Counts how often it was opened: zero means no task of the job ran. */
  static final class OpenCounter extends RichMapFunction<Long, Long> {
    private static final long serialVersionUID = 1L;
    private static final Map<String, AtomicInteger> OPENS = new ConcurrentHashMap<>();
    private final String id = UUID.randomUUID().toString();

    OpenCounter() {
      OPENS.put(id, new AtomicInteger());
    }

    int count() {
      return OPENS.get(id).get();
    }

    @Override
    public void open(OpenContext openContext) {
      OPENS.get(id).incrementAndGet();
    }

    @Override
    public Long map(Long value) {
      return value;
    }
  }

  /**
   * Keeps an {@code evo.Reading} per key (the count of its elements, the key, a note "n") and the
   * last one in operator list state; emits {@code key:fields} after each update, and once, first,
   * {@code -1:fields} of the restored list element. The class is the context class loader's, as the
   * job's own classes are; it declares both states ({@link #usesStates}).
   */
  static final class ReadingCounter extends KeyedProcessFunction<Long, Long, String>
      implements CheckpointedFunction {
    private static final long serialVersionUID = 1L;
    private final Shape shape;
    private final Declares declares;
    private transient ValueState<Object> reading;
    private transient ListState<Object> last;
    private transient Object restoredLast;
    private transient Object lastSeen;

    ReadingCounter(Shape shape, Declares declares) {
      this.shape = shape;
      this.declares = declares;
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private TypeInformation<Object> type() {
      Class<?> c = Shapes.load();
      return switch (shape) {
        case RECORD -> (TypeInformation) Types.RECORD((Class) c);
        case POJO -> (TypeInformation) Types.POJO(c);
        case KRYO -> (TypeInformation) Types.GENERIC(c);
        case INFERRED -> (TypeInformation) TypeInformation.of(c);
      };
    }

    private ValueStateDescriptor<Object> readingState() {
      return new ValueStateDescriptor<>("reading", type());
    }

    private ListStateDescriptor<Object> lastState() {
      return new ListStateDescriptor<>("last", type());
    }

    @Override
    public java.util.Collection<StateDescriptor<?>> usesStates() {
      return switch (declares) {
        case BOTH -> List.of(readingState(), lastState());
        case NOTHING -> List.of();
        case READING_AS_LIST -> List.of(new ListStateDescriptor<>("reading", type()), lastState());
      };
    }

    @Override
    public void initializeState(FunctionInitializationContext context) throws Exception {
      last = context.getOperatorStateStore().getListState(lastState());
      for (Object o : last.get()) {
        restoredLast = o;
      }
    }

    @Override
    public void snapshotState(FunctionSnapshotContext context) throws Exception {
      last.update(lastSeen == null ? List.of() : List.of(lastSeen));
    }

    @Override
    public void open(OpenContext openContext) {
      reading = getRuntimeContext().getState(readingState());
    }

    @Override
    public void processElement(Long value, Context ctx, Collector<String> out) throws Exception {
      if (restoredLast != null) {
        out.collect("-1:" + Shapes.describe(restoredLast));
        restoredLast = null;
      }
      Object next = Shapes.increment(reading.value(), ctx.getCurrentKey());
      reading.update(next);
      lastSeen = next;
      out.collect(ctx.getCurrentKey() + ":" + Shapes.describe(next));
    }
  }

  /** How {@link ReadingCounter} declares the type of its states. */
  enum Shape {
    /** {@code Types.RECORD}. */
    RECORD,
    /** {@code Types.POJO}. */
    POJO,
    /** {@code Types.GENERIC}: Kryo, as Weir chose for POJOs before it inferred them. */
    KRYO,
    /** {@code TypeInformation.of}: inferred. */
    INFERRED
  }

  /** What {@link ReadingCounter#usesStates} declares. */
  enum Declares {
    /** Its value state and its operator list state. */
    BOTH,
    /** Nothing: the states are checked when they are registered. */
    NOTHING,
    /** Its value state, but as list state: a change of kind. */
    READING_AS_LIST
  }

  /** A counter whose key is a String: the same state under another key type. */
  static final class StringKeyed extends KeyedProcessFunction<String, Long, String> {
    private static final long serialVersionUID = 1L;

    @Override
    public void processElement(Long value, Context ctx, Collector<String> out) {
      out.collect(ctx.getCurrentKey());
    }
  }

  /** Reflection over whichever version of {@code evo.Reading} the context loader has. */
  static final class Shapes {
    private Shapes() {}

    static Class<?> load() {
      try {
        return Class.forName(CLASS, true, Thread.currentThread().getContextClassLoader());
      } catch (ClassNotFoundException e) {
        throw new IllegalStateException("The job runs without its class " + CLASS, e);
      }
    }

    /** The reading after one more element of {@code key}: count + 1, other fields kept. */
    static Object increment(Object old, long key) throws Exception {
      Class<?> c = load();
      if (c.isRecord()) {
        RecordComponent[] components = c.getRecordComponents();
        Object[] args = new Object[components.length];
        for (int i = 0; i < components.length; i++) {
          RecordComponent rc = components[i];
          Object previous = old == null ? null : rc.getAccessor().invoke(old);
          args[i] = next(rc.getName(), rc.getType(), previous, old == null, key);
        }
        return c.getDeclaredConstructor(
                Arrays.stream(components).map(RecordComponent::getType).toArray(Class<?>[]::new))
            .newInstance(args);
      }
      Object next = c.getDeclaredConstructor().newInstance();
      for (Field f : fields(c)) {
        Object previous = old == null ? f.get(next) : f.get(old);
        Object value = next(f.getName(), f.getType(), previous, old == null, key);
        if (value != null || !f.getType().isPrimitive()) {
          f.set(next, value);
        }
      }
      return next;
    }

    private static Object next(
        String name, Class<?> type, Object previous, boolean fresh, long key) {
      return switch (name) {
        case "key" -> String.valueOf(key);
        case "count" -> (previous == null ? 0L : ((Number) previous).longValue()) + 1;
        case "note" -> fresh ? "n" : previous;
        default -> previous;
      };
    }

    private static List<Field> fields(Class<?> c) {
      List<Field> fields = new ArrayList<>();
      for (Field f : c.getFields()) {
        if (!Modifier.isStatic(f.getModifiers())) {
          fields.add(f);
        }
      }
      fields.sort(Comparator.comparing(Field::getName));
      return fields;
    }

    /** {@code name=value} of every field, sorted by name, joined by commas. */
    static String describe(Object reading) throws Exception {
      Class<?> c = reading.getClass();
      Map<String, Object> values = new TreeMap<>();
      if (c.isRecord()) {
        for (RecordComponent rc : c.getRecordComponents()) {
          values.put(rc.getName(), rc.getAccessor().invoke(reading));
        }
      } else {
        for (Field f : fields(c)) {
          values.put(f.getName(), f.get(reading));
        }
      }
      return values.entrySet().stream()
          .map(e -> e.getKey() + "=" + e.getValue())
          .collect(Collectors.joining(","));
    }
  }
}
