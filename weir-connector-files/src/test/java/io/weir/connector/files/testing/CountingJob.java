package io.weir.connector.files.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.weir.api.CheckpointStatistics;
import io.weir.api.JobClient;
import io.weir.api.JobExecutionResult;
import io.weir.api.RestartStrategy;
import io.weir.api.StreamEnvironment;
import io.weir.api.config.Configuration;
import io.weir.api.functions.CheckpointListener;
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
import io.weir.api.state.ValueState;
import io.weir.api.state.ValueStateDescriptor;
import io.weir.api.typeutils.Types;
import io.weir.connector.files.FileSink;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

/**
 * The exactly-once-under-failures job, sized for remote storage: a gated, replayable source of
 * numbers, a map that fails subtask 0 at a random record after a checkpoint completed (while
 * failures last), a keyed count in {@code ValueState}, and the exactly-once file sink, which writes
 * every 1000th count and each key's final count. After the job, every key's count must be exact and
 * every line must exist exactly once.
 *
 * <p>The source emits what {@link #allow} allows and ends after {@link #finish}, so a test can hold
 * the job at a point (checkpoints go on meanwhile) while it breaks and mends the store.
 */
public final class CountingJob {

  public static final int KEYS = 37;

  /** Gates, failure budgets and the true final counts, per job, by id: functions are copied. */
  private static final Map<String, Shared> SHARED = new ConcurrentHashMap<>();

  private final String id = UUID.randomUUID().toString();
  private final Shared shared;
  private final StreamEnvironment env;
  private final Path out;
  private final long limitPerSplit;
  private final int failures;

  /** What the copies of a job's functions share with the test. */
  static final class Shared {
    final AtomicLong allowedPerSplit = new AtomicLong();
    final AtomicLong lastCompletedCheckpoint = new AtomicLong();
    volatile long pace;
    volatile boolean finished;
    volatile CompletableFuture<Void> changed = new CompletableFuture<>();
    final AtomicInteger failuresLeft = new AtomicInteger();

    /** When true, a failure is injected only while {@link #failurePermits} is positive. */
    volatile boolean failuresGated;

    final AtomicInteger failurePermits = new AtomicInteger();
    final Map<Long, Long> expected = new ConcurrentHashMap<>();

    void signal() {
      CompletableFuture<Void> old = changed;
      changed = new CompletableFuture<>();
      old.complete(null);
    }
  }

  /**
   * @param storage the checkpoint storage URI
   * @param conf the job's configuration besides checkpointing ({@code s3.*}, backend keys)
   * @param backend {@code hashmap} or {@code rocksdb-incremental}
   */
  public CountingJob(
      String storage,
      Configuration conf,
      String backend,
      int parallelism,
      long limitPerSplit,
      int failures,
      long pace,
      Path dir) {
    this.shared = new Shared();
    shared.pace = pace;
    SHARED.put(id, shared);
    this.out = dir.resolve("out");
    this.limitPerSplit = limitPerSplit;
    this.failures = failures;
    shared.failuresLeft.set(failures);
    for (long v = 0; v < limitPerSplit * parallelism; v++) {
      shared.expected.merge(v % KEYS, 1L, Long::sum);
    }
    env = StreamEnvironment.create();
    env.setParallelism(parallelism);
    env.enableCheckpointing(Duration.ofMillis(50));
    env.getCheckpointConfig()
        .setCheckpointStorage(storage)
        .setTolerableCheckpointFailureNumber(1000)
        .setCheckpointTimeout(Duration.ofSeconds(30));
    env.setRestartStrategy(RestartStrategy.fixedDelay(failures + 5, Duration.ZERO));
    Configuration jobConf = env.getConfiguration();
    conf.toMap().forEach(jobConf::setString);
    jobConf
        .setString("state.backend.type", backend.startsWith("rocksdb") ? "rocksdb" : backend)
        .setString(
            "execution.checkpointing.incremental",
            String.valueOf(backend.equals("rocksdb-incremental")))
        .setString("state.backend.rocksdb.localdir", dir.resolve("rocksdb").toString());
    // Stable uids, so that a second job resumes from this one's checkpoint.
    env.fromSource(new GatedSource(id), "numbers", Types.LONG)
        .uid("numbers")
        .map(new FailingMap(id))
        .name("Failing Map")
        .uid("failing-map")
        .keyBy(v -> v % KEYS)
        .process(new CountPerKey(id))
        .name("Count Per Key")
        .uid("count-per-key")
        .sinkTo(FileSink.exactlyOnce(out))
        .name("Exactly-once Files")
        .uid("exactly-once-files");
  }

  /** Lets each split emit up to {@code fraction} of its records in all. */
  public void allow(double fraction) {
    shared.allowedPerSplit.set((long) (limitPerSplit * fraction));
    shared.signal();
  }

  /** Lets the source emit everything and end. */
  public void finish() {
    shared.allowedPerSplit.set(limitPerSplit);
    shared.finished = true;
    shared.signal();
  }

  /** From now on an injected failure waits for {@link #releaseFailure}. */
  public void gateFailures() {
    shared.failuresGated = true;
  }

  /** Lets one more injected failure happen, after the next completed checkpoint. */
  public void releaseFailure() {
    shared.failurePermits.incrementAndGet();
  }

  /** Injected failures that have not happened yet. */
  public int failuresLeft() {
    return Math.max(0, shared.failuresLeft.get());
  }

  public JobClient start() throws Exception {
    return env.executeAsync("counting-job");
  }

  /** Counts and lines exactly right, and every injected failure made the job restart. */
  public void verify(JobExecutionResult result) throws IOException {
    assertThat(result.metrics().get("job.restarts")).isEqualTo((long) failures);
    Map<Long, Long> maxCount = new HashMap<>();
    Map<String, Integer> lineCounts = new HashMap<>();
    for (String line : committedLines()) {
      lineCounts.merge(line, 1, Integer::sum);
      String[] parts = line.split(",");
      maxCount.merge(Long.parseLong(parts[0]), Long.parseLong(parts[1]), Math::max);
    }
    assertThat(maxCount).isEqualTo(shared.expected);
    Map<String, Integer> expectedLines = new HashMap<>();
    shared.expected.forEach(
        (k, total) -> {
          for (long c = 1000; c <= total; c += 1000) {
            expectedLines.put(k + "," + c, 1);
          }
          expectedLines.put(k + "," + total, 1);
        });
    assertThat(lineCounts).isEqualTo(expectedLines);
  }

  /**
   * Every key's final count is exact: for a job resumed from a checkpoint into an output directory
   * of its own, whose earlier lines the first job wrote elsewhere.
   */
  public void verifyFinalCounts() throws IOException {
    Map<Long, Long> maxCount = new HashMap<>();
    for (String line : committedLines()) {
      String[] parts = line.split(",");
      maxCount.merge(Long.parseLong(parts[0]), Long.parseLong(parts[1]), Math::max);
    }
    assertThat(maxCount).isEqualTo(shared.expected);
  }

  /** The newest completed checkpoint's id in {@code client}'s statistics, or -1. */
  public static long lastCompleted(JobClient client) {
    return lastWith(client, CheckpointStatistics.Status.COMPLETED);
  }

  /** The newest failed checkpoint's id in {@code client}'s statistics, or -1. */
  public static long lastFailed(JobClient client) {
    return lastWith(client, CheckpointStatistics.Status.FAILED);
  }

  private static long lastWith(JobClient client, CheckpointStatistics.Status status) {
    long last = -1;
    for (CheckpointStatistics s : client.getCheckpointStatistics()) {
      if (s.status() == status) {
        last = Math.max(last, s.checkpointId());
      }
    }
    return last;
  }

  private List<String> committedLines() throws IOException {
    if (!Files.isDirectory(out)) {
      return List.of();
    }
    try (Stream<Path> files = Files.list(out)) {
      return files
          .filter(p -> p.getFileName().toString().startsWith("part-"))
          .flatMap(
              p -> {
                try {
                  return Files.readAllLines(p).stream();
                } catch (IOException e) {
                  throw new UncheckedIOException(e);
                }
              })
          .toList();
    }
  }

  /** Fails subtask 0 at a random record after a checkpoint completed, while failures last. */
  static final class FailingMap extends RichMapFunction<Long, Long> implements CheckpointListener {
    private static final long serialVersionUID = 1L;
    private final String id;
    private transient long countdown;

    FailingMap(String id) {
      this.id = id;
    }

    @Override
    public void open(OpenContext openContext) {
      countdown = -1;
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) {
      if (countdown < 0 && getRuntimeContext().getIndexOfThisSubtask() == 0) {
        countdown = ThreadLocalRandom.current().nextLong(1, 200);
      }
    }

    @Override
    public Long map(Long value) {
      if (countdown > 0 && --countdown == 0) {
        Shared shared = SHARED.get(id);
        if (shared.failuresGated
            && shared.failurePermits.getAndUpdate(p -> p > 0 ? p - 1 : 0) == 0) {
          countdown = -1; // armed again by the next completed checkpoint
        } else if (shared.failuresLeft.getAndDecrement() > 0) {
          throw new IllegalStateException("injected failure at " + value);
        }
      }
      return value;
    }
  }

  /** Counts per key; emits "key,count" for every 1000th count and for the final count. */
  static final class CountPerKey extends KeyedProcessFunction<Long, Long, String> {
    private static final long serialVersionUID = 1L;
    private final String id;
    private transient ValueState<Long> count;

    CountPerKey(String id) {
      this.id = id;
    }

    @Override
    public void open(OpenContext openContext) {
      count = getRuntimeContext().getState(new ValueStateDescriptor<>("count", Types.LONG));
    }

    @Override
    public void processElement(Long value, Context ctx, io.weir.api.functions.Collector<String> out)
        throws Exception {
      Long c = count.value();
      long next = (c == null ? 0 : c) + 1;
      count.update(next);
      long key = ctx.getCurrentKey();
      if (next % 1000 == 0 || next == SHARED.get(id).expected.get(key)) {
        out.collect(key + "," + next);
      }
    }
  }

  /**
   * Split {@code (first, stride, next)} emits {@code first + i * stride} for {@code i = next ...}
   * below the limit; p splits with stride p emit {@code 0 .. p * limit - 1} exactly once. Emits
   * only what the gate allows and ends once finished.
   */
  static final class GatedSource implements Source<Long, GatedSource.Split> {
    private static final long serialVersionUID = 1L;
    private final String id;

    record Split(long first, long stride, long next) {}

    GatedSource(String id) {
      this.id = id;
    }

    @Override
    public Boundedness getBoundedness() {
      return Boundedness.CONTINUOUS_UNBOUNDED;
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
      return new Reader(SHARED.get(id));
    }

    @Override
    public SimpleVersionedSerializer<Split> getSplitSerializer() {
      return new SimpleVersionedSerializer<>() {
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
      };
    }

    private static final class Reader implements SourceReader<Long, Split> {
      private final Shared shared;
      private final List<long[]> splits = new ArrayList<>(); // first, stride, next
      private CompletableFuture<Void> available = CompletableFuture.completedFuture(null);
      private int cursor;

      Reader(Shared shared) {
        this.shared = shared;
      }

      @Override
      public void addSplits(List<Split> newSplits) {
        for (Split s : newSplits) {
          splits.add(new long[] {s.first(), s.stride(), s.next()});
        }
      }

      @Override
      public InputStatus pollNext(ReaderOutput<Long> output) {
        CompletableFuture<Void> change = shared.changed; // before reading the gate
        long cap = shared.allowedPerSplit.get();
        if (shared.pace > 0) {
          cap = Math.min(cap, shared.pace * (shared.lastCompletedCheckpoint.get() + 1));
        }
        for (int i = 0; i < splits.size(); i++) {
          long[] s = splits.get((cursor + i) % splits.size());
          if (s[2] < cap) {
            output.collect(s[0] + s[2] * s[1]);
            s[2]++;
            cursor = (cursor + i + 1) % splits.size();
            return InputStatus.MORE_AVAILABLE;
          }
        }
        if (shared.finished && cap == shared.allowedPerSplit.get()) {
          return InputStatus.END_OF_INPUT;
        }
        available = change;
        return InputStatus.NOTHING_AVAILABLE;
      }

      @Override
      public CompletableFuture<Void> isAvailable() {
        return available;
      }

      @Override
      public void notifyCheckpointComplete(long checkpointId) {
        if (shared.lastCompletedCheckpoint.getAndAccumulate(checkpointId, Math::max)
            < checkpointId) {
          shared.signal();
        }
      }

      @Override
      public List<Split> snapshotState(long checkpointId) {
        List<Split> out = new ArrayList<>();
        for (long[] s : splits) {
          out.add(new Split(s[0], s[1], s[2]));
        }
        return out;
      }
    }
  }
}
