package io.weir.runtime.recovery;

import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.weir.api.JobClient;
import io.weir.api.functions.CheckpointedFunction;
import io.weir.api.functions.Collector;
import io.weir.api.functions.KeyedProcessFunction;
import io.weir.api.functions.OpenContext;
import io.weir.api.functions.RichMapFunction;
import io.weir.api.source.Boundedness;
import io.weir.api.source.InputStatus;
import io.weir.api.source.ReaderOutput;
import io.weir.api.source.SimpleVersionedSerializer;
import io.weir.api.source.Source;
import io.weir.api.source.SourceReader;
import io.weir.api.source.SourceReaderContext;
import io.weir.api.state.FunctionInitializationContext;
import io.weir.api.state.FunctionSnapshotContext;
import io.weir.api.state.ValueState;
import io.weir.api.state.ValueStateDescriptor;
import io.weir.api.typeutils.Types;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.slf4j.LoggerFactory;

/**
 * Shared fixtures of the recovery integration tests: a replayable, checkpointed counting source, a
 * keyed counter with an injectable failure, and helpers to look at and damage checkpoint files.
 *
 * <p>Functions and sources are copied to every subtask, so whatever a test must observe or control
 * lives in static registries under a random id, as in {@link io.weir.runtime.api.CollectSink}.
 */
public final class RecoveryTestSupport {

  /**
   * False when these tests run on RocksDB with incremental checkpoints (system properties, see
   * weir-state-rocksdb's pom): such a checkpoint's SST files live in the job directory's {@code
   * shared/} folder, so a single {@code chk-<n>} directory is not self-contained.
   */
  public static boolean checkpointsAreSelfContained() {
    io.weir.api.config.Configuration conf = io.weir.api.config.Configuration.fromSystemProperties();
    return !(conf.get(io.weir.api.config.CheckpointingOptions.STATE_BACKEND).equals("rocksdb")
        && conf.get(io.weir.api.config.CheckpointingOptions.INCREMENTAL_CHECKPOINTS));
  }

  /**
   * False when these tests run on RocksDB with incremental or native full checkpoints (system
   * properties, see weir-state-rocksdb's pom): keyed state is then stored as one file per SST file
   * of RocksDB, compressed, so a limit on the size of one piece of state applies per file, not to
   * the subtask's whole keyed state as with the canonical format.
   */
  public static boolean keyedStateIsOnePiecePerSubtask() {
    io.weir.api.config.Configuration conf = io.weir.api.config.Configuration.fromSystemProperties();
    return !conf.get(io.weir.api.config.CheckpointingOptions.STATE_BACKEND).equals("rocksdb")
        || (!conf.get(io.weir.api.config.CheckpointingOptions.INCREMENTAL_CHECKPOINTS)
            && conf.getString("state.backend.rocksdb.checkpoint.full-format", "native")
                .equalsIgnoreCase("canonical"));
  }

  private RecoveryTestSupport() {}

  static final Duration WAIT = Duration.ofSeconds(20);

  private static final Pattern CHK = Pattern.compile("chk-(\\d+)");

  // ------------------------------------------------------------------ counting source

  /**
   * A replayable source of longs. Split {@code (first, stride, next)} emits {@code first + i *
   * stride} for {@code i = next, next + 1, ...} below {@code limitPerSplit}; a fresh start at
   * parallelism p creates p splits with stride p, so together they emit {@code 0 .. p * limit - 1}
   * exactly once. The splits with their offsets are the checkpointed state, so a restore (at any
   * parallelism) continues where the checkpoint was taken.
   *
   * <p>An unbounded source idles once its splits reached the limit; a bounded one ends. A gated
   * source emits only up to {@link Control#allow} records per split, and ends after {@link
   * Control#finish()}. Each source subtask reports, per checkpoint, how far its splits were when it
   * took the snapshot ({@link Control#progress}).
   */
  static final class CountingSource implements Source<Long, CountingSource.Split> {
    private static final long serialVersionUID = 1L;

    static final ConcurrentHashMap<String, Control> CONTROLS = new ConcurrentHashMap<>();

    /** One split and how far it is. */
    record Split(long first, long stride, long next) {}

    private final String id = UUID.randomUUID().toString();
    private final long limitPerSplit;
    private final boolean bounded;
    private final boolean gated;

    private CountingSource(long limitPerSplit, boolean bounded, boolean gated) {
      this.limitPerSplit = limitPerSplit;
      this.bounded = bounded;
      this.gated = gated;
      CONTROLS.put(id, new Control());
    }

    /** Emits {@code limit} records per split, then idles until cancelled. */
    static CountingSource unbounded(long limitPerSplit) {
      return new CountingSource(limitPerSplit, false, false);
    }

    /** Emits up to {@code limit} records per split, then ends. */
    static CountingSource bounded(long limitPerSplit) {
      return new CountingSource(limitPerSplit, true, false);
    }

    /** Emits what {@link Control#allow} allows (at most {@code limit} per split). */
    static CountingSource gated(long limitPerSplit) {
      return new CountingSource(limitPerSplit, false, true);
    }

    Control control() {
      return CONTROLS.get(id);
    }

    @Override
    public Boundedness getBoundedness() {
      return bounded ? Boundedness.BOUNDED : Boundedness.CONTINUOUS_UNBOUNDED;
    }

    @Override
    public List<Split> createSplits(int parallelism) {
      List<Split> splits = new ArrayList<>();
      for (int i = 0; i < parallelism; i++) {
        splits.add(new Split(i, parallelism, 0));
      }
      return splits;
    }

    @Override
    public SourceReader<Long, Split> createReader(SourceReaderContext context) {
      return new Reader(CONTROLS.get(id), limitPerSplit, bounded, gated);
    }

    @Override
    public SimpleVersionedSerializer<Split> getSplitSerializer() {
      return new SplitSerializer();
    }

    /** What a test controls and observes of a source (and all its copies). */
    static final class Control {
      final AtomicLong allowedPerSplit = new AtomicLong();
      volatile boolean finished;
      final ConcurrentHashMap<Long, LongAdder> progress = new ConcurrentHashMap<>();
      private volatile CompletableFuture<Void> changed = new CompletableFuture<>();

      /** Lets every split emit up to {@code recordsPerSplit} records in all. */
      void allow(long recordsPerSplit) {
        allowedPerSplit.set(recordsPerSplit);
        signal();
      }

      /** The source ends once its splits emitted what is allowed. */
      void finish() {
        finished = true;
        signal();
      }

      /**
       * Sum over all splits of the records emitted before the snapshot of {@code checkpointId}, or
       * -1 if no subtask took it.
       */
      long progress(long checkpointId) {
        LongAdder adder = progress.get(checkpointId);
        return adder == null ? -1 : adder.sum();
      }

      private void signal() {
        CompletableFuture<Void> old = changed;
        changed = new CompletableFuture<>();
        old.complete(null);
      }
    }

    private static final class Reader implements SourceReader<Long, Split> {
      private final Control control;
      private final long limit;
      private final boolean bounded;
      private final boolean gated;
      private final List<long[]> splits = new ArrayList<>(); // first, stride, next
      private final CompletableFuture<Void> never = new CompletableFuture<>();
      private CompletableFuture<Void> available = CompletableFuture.completedFuture(null);
      private int cursor;

      Reader(Control control, long limit, boolean bounded, boolean gated) {
        this.control = control;
        this.limit = limit;
        this.bounded = bounded;
        this.gated = gated;
      }

      @Override
      public void addSplits(List<Split> newSplits) {
        for (Split s : newSplits) {
          splits.add(new long[] {s.first(), s.stride(), s.next()});
        }
      }

      @Override
      public InputStatus pollNext(ReaderOutput<Long> output) {
        CompletableFuture<Void> change = control.changed; // before reading the gate
        long cap = gated ? Math.min(limit, control.allowedPerSplit.get()) : limit;
        for (int i = 0; i < splits.size(); i++) {
          long[] s = splits.get((cursor + i) % splits.size());
          if (s[2] < cap) {
            output.collect(s[0] + s[2] * s[1]);
            s[2]++;
            cursor = (cursor + i + 1) % splits.size();
            return InputStatus.MORE_AVAILABLE;
          }
        }
        if (bounded || (gated && control.finished)) {
          return InputStatus.END_OF_INPUT;
        }
        available = gated ? change : never;
        return InputStatus.NOTHING_AVAILABLE;
      }

      @Override
      public CompletableFuture<Void> isAvailable() {
        return available;
      }

      @Override
      public List<Split> snapshotState(long checkpointId) {
        long sum = 0;
        List<Split> out = new ArrayList<>();
        for (long[] s : splits) {
          out.add(new Split(s[0], s[1], s[2]));
          sum += s[2];
        }
        control.progress.computeIfAbsent(checkpointId, k -> new LongAdder()).add(sum);
        return out;
      }
    }

    private static final class SplitSerializer implements SimpleVersionedSerializer<Split> {
      @Override
      public int getVersion() {
        return 1;
      }

      @Override
      public byte[] serialize(Split split) {
        return ByteBuffer.allocate(24)
            .putLong(split.first())
            .putLong(split.stride())
            .putLong(split.next())
            .array();
      }

      @Override
      public Split deserialize(int version, byte[] serialized) throws IOException {
        if (version != 1 || serialized.length != 24) {
          throw new IOException("Unknown split format " + version + "/" + serialized.length);
        }
        ByteBuffer b = ByteBuffer.wrap(serialized);
        return new Split(b.getLong(), b.getLong(), b.getLong());
      }
    }
  }

  // ------------------------------------------------------------------ keyed counter

  /** What the counter emits per element: the key's count after it, and the attempt that counted. */
  public record Count(long key, long count, int attempt) {}

  /** A test's handle on a {@link KeyedCounter}: snapshots seen, and a failure to inject. */
  static final class CounterProbe {
    static final ConcurrentHashMap<String, CounterProbe> PROBES = new ConcurrentHashMap<>();

    final String id = UUID.randomUUID().toString();
    final AtomicLong lastSnapshot = new AtomicLong(-1);
    final AtomicBoolean armed = new AtomicBoolean();
    final CountDownLatch blocked = new CountDownLatch(1);
    final CountDownLatch release = new CountDownLatch(1);

    CounterProbe() {
      PROBES.put(id, this);
    }

    /** The next element blocks its subtask until {@link #release}, then fails the task. */
    void armFailure() {
      armed.set(true);
    }
  }

  /**
   * Counts elements per key in a {@code ValueState<Long>} and emits a {@link Count} per element.
   * Records every snapshot it takes in its probe; when the probe is armed, the next element blocks
   * the task until the test releases it, and then throws.
   */
  static final class KeyedCounter extends KeyedProcessFunction<Long, Long, Count>
      implements CheckpointedFunction {
    private static final long serialVersionUID = 1L;

    private final String probeId;
    private transient ValueState<Long> count;

    KeyedCounter(CounterProbe probe) {
      this.probeId = probe == null ? null : probe.id;
    }

    KeyedCounter() {
      this(null);
    }

    @Override
    public void open(OpenContext openContext) {
      count = getRuntimeContext().getState(new ValueStateDescriptor<>("count", Types.LONG));
    }

    @Override
    public void processElement(Long value, Context ctx, Collector<Count> out) throws Exception {
      CounterProbe probe = probeId == null ? null : CounterProbe.PROBES.get(probeId);
      if (probe != null && probe.armed.compareAndSet(true, false)) {
        probe.blocked.countDown();
        if (!probe.release.await(30, TimeUnit.SECONDS)) {
          throw new IllegalStateException("the test never released the injected failure");
        }
        throw new IllegalStateException("injected failure");
      }
      Long old = count.value();
      long n = (old == null ? 0 : old) + 1;
      count.update(n);
      out.collect(new Count(ctx.getCurrentKey(), n, getRuntimeContext().getAttemptNumber()));
    }

    @Override
    public void snapshotState(FunctionSnapshotContext context) {
      CounterProbe probe = probeId == null ? null : CounterProbe.PROBES.get(probeId);
      if (probe != null) {
        probe.lastSnapshot.accumulateAndGet(context.getCheckpointId(), Math::max);
      }
    }

    @Override
    public void initializeState(FunctionInitializationContext context) {}
  }

  /** An identity map that counts how often it was opened, to prove a job never started. */
  static final class OpenTracker extends RichMapFunction<Long, Long> {
    private static final long serialVersionUID = 1L;
    static final ConcurrentHashMap<String, AtomicInteger> OPENS = new ConcurrentHashMap<>();

    private final String id = UUID.randomUUID().toString();

    OpenTracker() {
      OPENS.put(id, new AtomicInteger());
    }

    int opens() {
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

  /** Per key {@code v % keys}: how many of the values {@code 0 .. total - 1} it has. */
  static Map<Long, Long> expectedCounts(long total, int keys) {
    Map<Long, Long> counts = new TreeMap<>();
    for (long v = 0; v < total; v++) {
      counts.merge(v % keys, 1L, Long::sum);
    }
    return counts;
  }

  /** Per key, the highest count emitted. */
  static Map<Long, Long> finalCounts(List<Count> counts) {
    Map<Long, Long> out = new TreeMap<>();
    for (Count c : counts) {
      out.merge(c.key(), c.count(), Math::max);
    }
    return out;
  }

  /** Per key, the lowest count emitted. */
  static Map<Long, Long> firstCounts(List<Count> counts) {
    Map<Long, Long> out = new TreeMap<>();
    for (Count c : counts) {
      out.merge(c.key(), c.count(), Math::min);
    }
    return out;
  }

  // ------------------------------------------------------------------ checkpoint files

  static Path jobDir(Path base, JobClient client) {
    return base.resolve(client.getJobID().value());
  }

  /** The ids of the {@code chk-<n>} directories of {@code jobDir} that hold a {@code _metadata}. */
  static TreeSet<Long> completedIds(Path jobDir) {
    TreeSet<Long> ids = new TreeSet<>();
    for (Map.Entry<Long, Path> e : checkpointDirs(jobDir).entrySet()) {
      if (Files.exists(e.getValue().resolve("_metadata"))) {
        ids.add(e.getKey());
      }
    }
    return ids;
  }

  /** Every {@code chk-<n>} directory of {@code jobDir}, complete or not, by id. */
  static TreeMap<Long, Path> checkpointDirs(Path jobDir) {
    TreeMap<Long, Path> dirs = new TreeMap<>();
    if (!Files.isDirectory(jobDir)) {
      return dirs;
    }
    try (DirectoryStream<Path> stream = Files.newDirectoryStream(jobDir)) {
      for (Path p : stream) {
        Matcher m = CHK.matcher(p.getFileName().toString());
        if (m.matches()) {
          dirs.put(Long.parseLong(m.group(1)), p);
        }
      }
    } catch (NoSuchFileException e) {
      return dirs;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return dirs;
  }

  /**
   * Waits until a completed checkpoint exists whose source snapshot came after all {@code total}
   * records, and returns its id. Every later checkpoint of an idle source covers them too.
   */
  static long awaitCoveringCheckpoint(Path jobDir, CountingSource source, long total) {
    AtomicLong found = new AtomicLong(-1);
    await()
        .atMost(WAIT)
        .pollInterval(Duration.ofMillis(10))
        .ignoreExceptions()
        .until(
            () -> {
              for (long id : completedIds(jobDir).descendingSet()) {
                if (source.control().progress(id) == total) {
                  found.set(id);
                  return true;
                }
              }
              return false;
            });
    return found.get();
  }

  /** Flips one byte in the middle of {@code file}. */
  static void flipByte(Path file) throws IOException {
    byte[] bytes = Files.readAllBytes(file);
    if (bytes.length == 0) {
      throw new IllegalStateException(file + " is empty");
    }
    bytes[bytes.length / 2] ^= 0x5A;
    Files.write(file, bytes);
  }

  /**
   * The state files in a checkpoint directory: not its {@code _metadata}, nor the {@code _history}
   * kept beside it, which no restore reads.
   */
  static List<Path> stateFiles(Path checkpointDir) throws IOException {
    try (Stream<Path> files = Files.list(checkpointDir)) {
      return files.filter(p -> !p.getFileName().toString().startsWith("_")).toList();
    }
  }

  /** Copies the directory tree {@code from} to {@code to}. */
  static void copyTree(Path from, Path to) throws IOException {
    try (Stream<Path> paths = Files.walk(from)) {
      for (Path p : paths.toList()) {
        Path target = to.resolve(from.relativize(p).toString());
        if (Files.isDirectory(p)) {
          Files.createDirectories(target);
        } else {
          Files.copy(p, target, StandardCopyOption.COPY_ATTRIBUTES);
        }
      }
    }
  }

  /** Deletes the directory tree {@code dir}. */
  static void deleteTree(Path dir) throws IOException {
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }

  /** Every message along a throwable's cause chain (and suppressed ones), joined. */
  static String chainMessages(Throwable t) {
    StringBuilder sb = new StringBuilder();
    for (Throwable c = t; c != null; c = c.getCause()) {
      sb.append(c.getClass().getSimpleName()).append(": ").append(c.getMessage()).append('\n');
      for (Throwable s : c.getSuppressed()) {
        sb.append("suppressed ").append(chainMessages(s));
      }
      if (c.getCause() == c) {
        break;
      }
    }
    return sb.toString();
  }

  // ------------------------------------------------------------------ log capture

  /** Collects what one logger logs while open. */
  static final class LogCapture implements AutoCloseable {
    private final Logger logger;
    private final ListAppender<ILoggingEvent> appender = new ListAppender<>();

    LogCapture(String loggerName) {
      this.logger = (Logger) LoggerFactory.getLogger(loggerName);
      appender.start();
      logger.addAppender(appender);
    }

    /** Every formatted message so far. */
    List<String> messages() {
      List<String> out = new ArrayList<>();
      synchronized (appender) {
        for (ILoggingEvent e : appender.list) {
          out.add(e.getFormattedMessage());
        }
      }
      return out;
    }

    /** The formatted WARN (and above) messages so far. */
    List<String> warnings() {
      List<String> out = new ArrayList<>();
      synchronized (appender) {
        for (ILoggingEvent e : appender.list) {
          if (e.getLevel().isGreaterOrEqual(Level.WARN)) {
            out.add(e.getFormattedMessage());
          }
        }
      }
      return out;
    }

    @Override
    public void close() {
      logger.detachAppender(appender);
      appender.stop();
    }
  }
}
