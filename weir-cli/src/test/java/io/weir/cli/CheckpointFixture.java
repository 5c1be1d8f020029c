package io.weir.cli;

import static org.awaitility.Awaitility.await;

import io.weir.api.CheckpointStatistics;
import io.weir.api.ExternalizedCheckpointRetention;
import io.weir.api.JobClient;
import io.weir.api.StreamEnvironment;
import io.weir.api.config.CheckpointingOptions;
import io.weir.api.config.MemorySize;
import io.weir.api.functions.CheckpointListener;
import io.weir.api.functions.Collector;
import io.weir.api.functions.KeyedProcessFunction;
import io.weir.api.functions.OpenContext;
import io.weir.api.functions.SinkFunction;
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
import io.weir.state.rocksdb.EmbeddedRocksDBStateBackend;
import io.weir.state.rocksdb.RocksDBOptions;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

/**
 * Produces real checkpoints for the CLI's tests: runs a small keyed job in local execution (source
 * uid {@code source} with its splits as operator state, keyed operator uid {@code counter} with a
 * {@code ValueState<Long>} "count" and a {@code ValueState<Last>} "last" of a user record type),
 * waits until a completed checkpoint covers every record, and cancels it with {@code
 * RETAIN_ON_CANCELLATION}.
 */
final class CheckpointFixture {

  static final int KEYS = 11;
  static final int PARALLELISM = 2;
  static final long PER_SPLIT = 200;
  static final long TOTAL = PER_SPLIT * PARALLELISM;

  /** The state backends and checkpoint kinds the tests cover. */
  enum Backend {
    HEAP,
    ROCKSDB_INCREMENTAL,
    ROCKSDB_CANONICAL_FULL
  }

  /** A user type kept in keyed state: inspect needs the test classes on its class path. */
  public record Last(long key, long count, String label) {}

  /**
   * What a finished run left behind.
   *
   * @param jobDir the job's checkpoint directory
   * @param checkpointId the newest completed checkpoint, which covers every record
   */
  record Retained(Path jobDir, long checkpointId) {
    Path checkpointDir() {
      return jobDir.resolve("chk-" + checkpointId);
    }
  }

  private CheckpointFixture() {}

  private static final Map<Backend, Retained> SHARED = new ConcurrentHashMap<>();

  /**
   * The checkpoints of one run per backend, shared by every test of this JVM: tests that damage
   * them work on a copy ({@link #copyTree}).
   */
  static synchronized Retained shared(Backend backend) throws Exception {
    Retained retained = SHARED.get(backend);
    if (retained == null) {
      Path base = Files.createTempDirectory("weir-cli-checkpoints-" + backend);
      retained = run(base, backend);
      SHARED.put(backend, retained);
    }
    return retained;
  }

  /** A copy of a shared run's job directory below {@code dir}, to damage. */
  static Retained copyOf(Backend backend, Path dir) throws Exception {
    Retained shared = shared(backend);
    Path jobDir = dir.resolve(shared.jobDir().getFileName().toString());
    // Only what the retained checkpoint uses: aborted ones may still be being deleted.
    copyTree(shared.checkpointDir(), jobDir.resolve(shared.checkpointDir().getFileName()));
    if (Files.isDirectory(shared.jobDir().resolve("shared"))) {
      copyTree(shared.jobDir().resolve("shared"), jobDir.resolve("shared"));
    }
    return new Retained(jobDir, shared.checkpointId());
  }

  /** Each key's count after the whole input: what every retained checkpoint holds. */
  static Map<Long, Long> expectedCounts() {
    Map<Long, Long> counts = new TreeMap<>();
    for (long v = 0; v < TOTAL; v++) {
      counts.merge(v % KEYS, 1L, Long::sum);
    }
    return counts;
  }

  static Last expectedLast(long key, long count) {
    return new Last(key, count, "key " + key + " #" + count);
  }

  static Retained run(Path base, Backend backend) throws Exception {
    StreamEnvironment env = StreamEnvironment.create();
    env.setParallelism(PARALLELISM);
    env.setBufferTimeout(Duration.ZERO);
    env.enableCheckpointing(Duration.ofMillis(30));
    env.getCheckpointConfig()
        .setCheckpointStorage(base.toUri().toString())
        .setExternalizedCheckpointRetention(ExternalizedCheckpointRetention.RETAIN_ON_CANCELLATION);
    // Every piece of state in a file of its own, none inline in _metadata, so tests can damage it.
    env.getConfiguration()
        .set(CheckpointingOptions.FS_SMALL_FILE_THRESHOLD, MemorySize.parse("0 b"));
    switch (backend) {
      case HEAP -> {}
      case ROCKSDB_INCREMENTAL -> env.setStateBackend(new EmbeddedRocksDBStateBackend(true));
      case ROCKSDB_CANONICAL_FULL -> {
        env.setStateBackend(new EmbeddedRocksDBStateBackend(false));
        env.getConfiguration().set(RocksDBOptions.FULL_CHECKPOINT_FORMAT, "canonical");
      }
    }
    CountingSource source = new CountingSource(PER_SPLIT);
    String run = source.id;
    SEEN.put(run, new AtomicLong());
    env.fromSource(source, "numbers", Types.LONG)
        .uid("source")
        .keyBy(v -> v % KEYS, Types.LONG)
        .process(new Counter())
        .uid("counter")
        .name("counter")
        .addSink(new CommittingSink(run))
        .name("sink");
    JobClient client = env.executeAsync("cli-fixture-" + backend);
    Path jobDir = base.resolve(client.getJobID().value());
    try {
      await().atMost(Duration.ofSeconds(30)).until(() -> SEEN.get(run).get() == TOTAL);
      // A checkpoint whose source snapshot came after the last record holds every count
      // (aligned barriers follow the records); later ones of the idle source do too.
      await()
          .atMost(Duration.ofSeconds(30))
          .pollInterval(Duration.ofMillis(10))
          .until(() -> newestRetained(client) >= 2 && covers(run, newestRetained(client)));
    } finally {
      client.cancel().get(30, TimeUnit.SECONDS);
    }
    // Nothing is retained after the cancel; the checkpoints the newest subsumed, and any whose
    // metadata was written as the job ended, are deleted in the background: wait until only the
    // newest retained one is left.
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> completedIds(jobDir).equals(List.of(newestRetained(client))));
    long newest = newestRetained(client);
    if (!covers(run, newest)) {
      throw new IllegalStateException("checkpoint " + newest + " does not cover every record");
    }
    return new Retained(jobDir, newest);
  }

  static final ConcurrentHashMap<String, AtomicLong> SEEN = new ConcurrentHashMap<>();

  /**
   * Counts what it is given, and "commits" when a checkpoint completes, as a two-phase-commit sink
   * does: the flight recorder times that commit.
   */
  static final class CommittingSink implements SinkFunction<Long>, CheckpointListener {
    private static final long serialVersionUID = 1L;
    private final String run;

    CommittingSink(String run) {
      this.run = run;
    }

    @Override
    public void invoke(Long value, Context ctx) {
      SEEN.get(run).incrementAndGet();
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) {}
  }

  /** Per source run: the checkpoints whose source snapshot came after every record. */
  static final ConcurrentHashMap<String, Map<Long, Long>> SNAPSHOTTED = new ConcurrentHashMap<>();

  private static boolean covers(String run, long checkpointId) {
    Long emitted = SNAPSHOTTED.getOrDefault(run, Map.of()).get(checkpointId);
    return emitted != null && emitted == TOTAL;
  }

  /** The newest checkpoint the coordinator retained (completed, metadata written). */
  static long newestRetained(JobClient client) {
    return client.getCheckpointStatistics().stream()
        .filter(c -> c.status() == CheckpointStatistics.Status.COMPLETED)
        .mapToLong(CheckpointStatistics::checkpointId)
        .max()
        .orElse(-1);
  }

  /** The ids of the {@code chk-<n>} directories holding a {@code _metadata}, ascending. */
  static List<Long> completedIds(Path jobDir) throws IOException {
    if (!Files.isDirectory(jobDir)) {
      return List.of();
    }
    try (Stream<Path> dirs = Files.list(jobDir)) {
      return dirs.filter(d -> d.getFileName().toString().matches("chk-\\d+"))
          .filter(d -> Files.exists(d.resolve("_metadata")))
          .map(d -> Long.parseLong(d.getFileName().toString().substring(4)))
          .sorted()
          .toList();
    }
  }

  /** Counts per key, remembering the count and a {@link Last} per key. */
  static final class Counter extends KeyedProcessFunction<Long, Long, Long> {
    private static final long serialVersionUID = 1L;
    private transient ValueState<Long> count;
    private transient ValueState<Last> last;

    @Override
    public void open(OpenContext openContext) {
      count = getRuntimeContext().getState(new ValueStateDescriptor<>("count", Types.LONG));
      last = getRuntimeContext().getState(new ValueStateDescriptor<>("last", Last.class));
    }

    @Override
    public void processElement(Long value, Context ctx, Collector<Long> out) throws Exception {
      Long old = count.value();
      long n = (old == null ? 0 : old) + 1;
      count.update(n);
      last.update(expectedLast(ctx.getCurrentKey(), n));
      out.collect(value);
    }
  }

  /**
   * Emits {@code first + i * stride} for each split {@code (first, stride)} up to {@code limit}
   * records per split, then idles until cancelled; its splits with their offsets are its state.
   */
  static final class CountingSource implements Source<Long, long[]> {
    private static final long serialVersionUID = 1L;
    final String id = UUID.randomUUID().toString();
    private final long limit;

    CountingSource(long limit) {
      this.limit = limit;
    }

    @Override
    public Boundedness getBoundedness() {
      return Boundedness.CONTINUOUS_UNBOUNDED;
    }

    @Override
    public List<long[]> createSplits(int parallelism) {
      List<long[]> splits = new ArrayList<>();
      for (int i = 0; i < parallelism; i++) {
        splits.add(new long[] {i, parallelism, 0});
      }
      return splits;
    }

    @Override
    public SourceReader<Long, long[]> createReader(SourceReaderContext context) {
      String run = id;
      long max = limit;
      return new SourceReader<>() {
        private final List<long[]> splits = new ArrayList<>();
        private final CompletableFuture<Void> never = new CompletableFuture<>();
        private CompletableFuture<Void> available = CompletableFuture.completedFuture(null);

        @Override
        public void addSplits(List<long[]> newSplits) {
          newSplits.forEach(s -> splits.add(s.clone()));
        }

        @Override
        public InputStatus pollNext(ReaderOutput<Long> output) {
          for (long[] s : splits) {
            if (s[2] < max) {
              output.collect(s[0] + s[2] * s[1]);
              s[2]++;
              return InputStatus.MORE_AVAILABLE;
            }
          }
          available = never;
          return InputStatus.NOTHING_AVAILABLE;
        }

        @Override
        public CompletableFuture<Void> isAvailable() {
          return available;
        }

        @Override
        public List<long[]> snapshotState(long checkpointId) {
          long emitted = 0;
          List<long[]> copy = new ArrayList<>();
          for (long[] s : splits) {
            copy.add(s.clone());
            emitted += s[2];
          }
          SNAPSHOTTED
              .computeIfAbsent(run, r -> new ConcurrentHashMap<>())
              .merge(checkpointId, emitted, Long::sum);
          return copy;
        }
      };
    }

    @Override
    public SimpleVersionedSerializer<long[]> getSplitSerializer() {
      return new SimpleVersionedSerializer<>() {
        @Override
        public int getVersion() {
          return 1;
        }

        @Override
        public byte[] serialize(long[] split) {
          return ByteBuffer.allocate(24)
              .putLong(split[0])
              .putLong(split[1])
              .putLong(split[2])
              .array();
        }

        @Override
        public long[] deserialize(int version, byte[] serialized) {
          ByteBuffer b = ByteBuffer.wrap(serialized);
          return new long[] {b.getLong(), b.getLong(), b.getLong()};
        }
      };
    }
  }

  /** Copies the directory tree {@code from} to {@code to}. */
  static void copyTree(Path from, Path to) {
    try (Stream<Path> paths = Files.walk(from)) {
      for (Path p : paths.toList()) {
        Path target = to.resolve(from.relativize(p).toString());
        if (Files.isDirectory(p)) {
          Files.createDirectories(target);
        } else {
          try {
            Files.copy(p, target, StandardCopyOption.COPY_ATTRIBUTES);
          } catch (java.nio.file.NoSuchFileException e) {
            // a shared file no retained checkpoint uses, deleted meanwhile
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Every file below {@code dir} with its size and modification time, to prove nothing changed. */
  static List<String> snapshotTree(Path dir) throws IOException {
    try (Stream<Path> paths = Files.walk(dir)) {
      return paths
          .sorted(Comparator.naturalOrder())
          .map(
              p -> {
                try {
                  return dir.relativize(p)
                      + " "
                      + (Files.isRegularFile(p) ? Files.size(p) : -1)
                      + " "
                      + Files.getLastModifiedTime(p);
                } catch (IOException e) {
                  throw new UncheckedIOException(e);
                }
              })
          .toList();
    }
  }

  /** Flips one byte in the middle of {@code file}. */
  static void flipByte(Path file) throws IOException {
    byte[] bytes = Files.readAllBytes(file);
    bytes[bytes.length / 2] ^= 0x5A;
    Files.write(file, bytes);
  }
}
