package io.weir.runtime.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.weir.api.DataStream;
import io.weir.api.JobExecutionException;
import io.weir.api.StreamEnvironment;
import io.weir.api.functions.OpenContext;
import io.weir.api.functions.RichMapFunction;
import io.weir.api.sink.Sink;
import io.weir.api.sink.SinkWriter;
import io.weir.api.sink.WriterInitContext;
import io.weir.api.tuple.Tuple2;
import io.weir.api.typeutils.Types;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Function lifecycle (open once, close once, also after a failure), copies between chained
 * branches, and elements of a plain (non-Serializable) record type.
 */
@Timeout(30)
public class LifecycleTest {

  /** Records "open i", "map i", "close i" events per subtask i, in a JVM-wide log by id. */
  public static final class LifecycleMap extends RichMapFunction<Long, Long> {
    private static final long serialVersionUID = 1L;
    static final ConcurrentHashMap<String, ConcurrentLinkedQueue<String>> LOG =
        new ConcurrentHashMap<>();
    private final String id = UUID.randomUUID().toString();
    private final long failAt;

    LifecycleMap(long failAt) {
      this.failAt = failAt;
      LOG.put(id, new ConcurrentLinkedQueue<>());
    }

    List<String> events() {
      return new ArrayList<>(LOG.get(id));
    }

    private String me() {
      return String.valueOf(getRuntimeContext().getIndexOfThisSubtask());
    }

    @Override
    public void open(OpenContext openContext) {
      LOG.get(id).add("open " + me());
    }

    @Override
    public Long map(Long value) {
      if (value == failAt) {
        throw new IllegalStateException("fail at " + value);
      }
      LOG.get(id).add("map " + me());
      return value;
    }

    @Override
    public void close() {
      LOG.get(id).add("close " + me());
    }
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 3})
  void openAndCloseAreCalledOncePerSubtaskAroundTheElements(int parallelism) throws Exception {
    StreamEnvironment env = StreamEnvironment.create();
    env.setParallelism(parallelism);
    LifecycleMap map = new LifecycleMap(-1);
    env.fromSequence(1, 30).rebalance().map(map).sinkTo(new CollectSink<>());
    env.execute("lifecycle");

    List<String> events = map.events();
    for (int i = 0; i < parallelism; i++) {
      String me = String.valueOf(i);
      List<String> mine = events.stream().filter(e -> e.endsWith(" " + me)).toList();
      assertThat(mine)
          .as("events of subtask %s", i)
          .startsWith("open " + me)
          .endsWith("close " + me);
      assertThat(mine).filteredOn(e -> e.startsWith("open")).hasSize(1);
      assertThat(mine).filteredOn(e -> e.startsWith("close")).hasSize(1);
    }
    assertThat(events).filteredOn(e -> e.startsWith("map")).hasSize(30);
  }

  @Test
  void closeIsCalledAfterAFailure() {
    StreamEnvironment env = StreamEnvironment.create();
    env.setParallelism(1);
    LifecycleMap map = new LifecycleMap(5);
    env.fromSequence(1, 30).map(map).sinkTo(new CollectSink<>());

    Throwable thrown = catchThrowable(() -> env.execute("lifecycle-failure"));

    assertThat(thrown).isInstanceOf(JobExecutionException.class);
    assertThat(map.events())
        .containsExactly("open 0", "map 0", "map 0", "map 0", "map 0", "close 0");
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 2})
  void aChainedFunctionMutatingItsInputDoesNotAffectTheOtherBranch(int parallelism)
      throws Exception {
    // Without object reuse (the default), each chained consumer gets its own copy of a mutable
    // record, as in Flink.
    StreamEnvironment env = StreamEnvironment.create();
    env.setParallelism(parallelism);
    CollectSink<Tuple2<Long, Long>> mutated = new CollectSink<>();
    CollectSink<Tuple2<Long, Long>> untouched = new CollectSink<>();
    DataStream<Tuple2<Long, Long>> pairs =
        env.fromSequence(1, 20)
            .map(x -> Tuple2.of(x, x))
            .returns(Types.TUPLE(Types.LONG, Types.LONG));
    pairs
        .map(
            t -> {
              t.f1 = -1L;
              return t;
            })
        .returns(Types.TUPLE(Types.LONG, Types.LONG))
        .sinkTo(mutated);
    pairs.map(t -> t).returns(Types.TUPLE(Types.LONG, Types.LONG)).sinkTo(untouched);
    env.execute("fan-out-copies");

    List<Tuple2<Long, Long>> expectedMutated = new ArrayList<>();
    List<Tuple2<Long, Long>> expectedUntouched = new ArrayList<>();
    for (long x = 1; x <= 20; x++) {
      expectedMutated.add(Tuple2.of(x, -1L));
      expectedUntouched.add(Tuple2.of(x, x));
    }
    assertThat(mutated.results()).containsExactlyInAnyOrderElementsOf(expectedMutated);
    assertThat(untouched.results()).containsExactlyInAnyOrderElementsOf(expectedUntouched);
  }

  /** What a function emitted last, by element, for sinks to compare identities with. */
  private static final Map<String, Tuple2<Long, Long>> EMITTED = new ConcurrentHashMap<>();

  /** Per run, whether each element a sink got was the very object emitted. */
  private static final Map<String, List<Boolean>> SAME_OBJECT = new ConcurrentHashMap<>();

  /** Emits one reused {@code Tuple2}, changed for every element, and remembers it. */
  private static final class ReusingMap extends RichMapFunction<Long, Tuple2<Long, Long>> {
    private static final long serialVersionUID = 1L;
    private final String run;
    private transient Tuple2<Long, Long> reused;

    ReusingMap(String run) {
      this.run = run;
    }

    @Override
    public void open(OpenContext openContext) {
      reused = new Tuple2<>();
    }

    @Override
    public Tuple2<Long, Long> map(Long x) {
      reused.f0 = x;
      reused.f1 = x * 10;
      EMITTED.put(run, reused);
      return reused;
    }
  }

  /** Notes whether each element is the object emitted; keeps elements or not as told. */
  private static final class IdentitySink implements Sink<Tuple2<Long, Long>> {
    private static final long serialVersionUID = 1L;
    private final String run;
    private final boolean keeps;

    IdentitySink(String run, boolean keeps) {
      this.run = run;
      this.keeps = keeps;
    }

    @Override
    public boolean keepsElements() {
      return keeps;
    }

    @Override
    public SinkWriter<Tuple2<Long, Long>> createWriter(WriterInitContext context) {
      return (element, ctx) ->
          SAME_OBJECT
              .computeIfAbsent(run, r -> new CopyOnWriteArrayList<>())
              .add(element == EMITTED.get(run));
    }
  }

  @ParameterizedTest
  @ValueSource(booleans = {true, false})
  void onlyASinkThatKeepsElementsIsHandedCopies(boolean keeps) throws Exception {
    // A function may change the object it emitted once collect returns; a sink that keeps
    // elements must be handed a copy, one that turns each into bytes at once needs none.
    String run = UUID.randomUUID().toString();
    StreamEnvironment env = StreamEnvironment.create();
    env.setParallelism(1);
    env.fromSequence(1, 50)
        .map(new ReusingMap(run))
        .returns(Types.TUPLE(Types.LONG, Types.LONG))
        .sinkTo(new IdentitySink(run, keeps));
    env.execute("sink-copies");

    assertThat(SAME_OBJECT.get(run)).hasSize(50).containsOnly(!keeps);
  }

  @Test
  void aSinkThatKeepsElementsSeesEveryValueOfAReusedOutputObject() throws Exception {
    StreamEnvironment env = StreamEnvironment.create();
    env.setParallelism(1);
    CollectSink<Tuple2<Long, Long>> sink = new CollectSink<>();
    env.fromSequence(1, 50)
        .map(new ReusingMap(UUID.randomUUID().toString()))
        .returns(Types.TUPLE(Types.LONG, Types.LONG))
        .sinkTo(sink);
    env.execute("reused-output");

    List<Tuple2<Long, Long>> expected = new ArrayList<>();
    for (long x = 1; x <= 50; x++) {
      expected.add(Tuple2.of(x, x * 10));
    }
    assertThat(sink.results()).containsExactlyElementsOf(expected);
  }

  /** A plain record, not Serializable: Weir recommends records for stream elements. */
  public record Reading(String sensor, double value) {}

  @Test
  void fromElementsAcceptsAPlainRecordType() throws Exception {
    // Flink ships fromElements' elements with their TypeSerializer, so element types need not be
    // java.io.Serializable.
    StreamEnvironment env = StreamEnvironment.create();
    env.setParallelism(2);
    CollectSink<String> sink = new CollectSink<>();
    env.fromElements(new Reading("a", 1.5), new Reading("b", 2.5), new Reading("a", 3.0))
        .keyBy(Reading::sensor, Types.STRING)
        .map(r -> r.sensor() + "=" + r.value())
        .sinkTo(sink);
    env.execute("plain-records");

    assertThat(sink.results()).containsExactlyInAnyOrder("a=1.5", "b=2.5", "a=3.0");
  }
}
