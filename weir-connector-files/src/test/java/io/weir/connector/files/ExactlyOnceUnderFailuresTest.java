package io.weir.connector.files;

import static org.assertj.core.api.Assertions.assertThat;

import io.weir.api.CheckpointingMode;
import io.weir.api.JobExecutionResult;
import io.weir.api.RestartStrategy;
import io.weir.api.StreamEnvironment;
import io.weir.api.functions.CheckpointListener;
import io.weir.api.functions.Collector;
import io.weir.api.functions.KeyedCoProcessFunction;
import io.weir.api.functions.OpenContext;
import io.weir.api.functions.RichMapFunction;
import io.weir.api.state.ValueState;
import io.weir.api.state.ValueStateDescriptor;
import io.weir.api.typeutils.Types;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A keyed count over two inputs (one shuffled through a failing map, one keyed directly), joined in
 * a keyed two-input operator and written by the exactly-once file sink, survives many injected task
 * failures: every key's count is exactly right and every output line exists exactly once. Declared
 * once, run across checkpointing mode and checkpoint storage.
 */
class ExactlyOnceUnderFailuresTest {

  static final int KEYS = 37;
  static final long N_PER_SUBTASK = 4_000_000;
  static final long M = 100_000;

  /** The true final count per key, so the job can emit it without emitting every count. */
  static final Map<Long, Long> EXPECTED = new java.util.concurrent.ConcurrentHashMap<>();

  static final AtomicInteger FAILURES_LEFT = new AtomicInteger();

  static Stream<Arguments> matrix() {
    return Stream.of(
        Arguments.of(CheckpointingMode.EXACTLY_ONCE, "jobmanager", 2, "aligned", "hashmap"),
        Arguments.of(CheckpointingMode.EXACTLY_ONCE, "filesystem", 3, "aligned", "hashmap"),
        Arguments.of(CheckpointingMode.EXACTLY_ONCE, "filesystem", 2, "unaligned", "hashmap"),
        Arguments.of(CheckpointingMode.EXACTLY_ONCE, "jobmanager", 3, "unaligned", "hashmap"),
        Arguments.of(
            CheckpointingMode.EXACTLY_ONCE, "filesystem", 2, "aligned-timeout-0", "hashmap"),
        Arguments.of(
            CheckpointingMode.EXACTLY_ONCE, "filesystem", 3, "aligned-timeout-2ms", "hashmap"),
        Arguments.of(CheckpointingMode.AT_LEAST_ONCE, "jobmanager", 2, "aligned", "hashmap"),
        Arguments.of(CheckpointingMode.AT_LEAST_ONCE, "filesystem", 4, "aligned", "hashmap"),
        Arguments.of(
            CheckpointingMode.EXACTLY_ONCE, "filesystem", 2, "aligned", "rocksdb-incremental"),
        Arguments.of(
            CheckpointingMode.EXACTLY_ONCE, "filesystem", 3, "unaligned", "rocksdb-incremental"),
        Arguments.of(
            CheckpointingMode.EXACTLY_ONCE,
            "filesystem",
            2,
            "aligned-timeout-2ms",
            "rocksdb-incremental"),
        Arguments.of(CheckpointingMode.EXACTLY_ONCE, "jobmanager", 2, "aligned", "rocksdb-full"),
        Arguments.of(
            CheckpointingMode.EXACTLY_ONCE,
            "filesystem",
            3,
            "aligned-timeout-0",
            "rocksdb-canonical"));
  }

  /**
   * Fails subtask 0 at a random record after a checkpoint completed in the current attempt (so
   * every attempt makes progress), while failures last.
   */
  static final class FailingMap extends RichMapFunction<Long, Long> implements CheckpointListener {
    private static final long serialVersionUID = 1L;
    private transient long countdown;

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
      if (countdown > 0 && --countdown == 0 && FAILURES_LEFT.getAndDecrement() > 0) {
        throw new IllegalStateException("injected failure at " + value);
      }
      return value;
    }
  }

  /**
   * Counts both inputs per key and emits "key,count" for every 1000th count and for the final
   * count, so the output stays small while every emitted line is checked for exactly-once.
   */
  static final class CountBoth extends KeyedCoProcessFunction<Long, Long, Long, String> {
    private static final long serialVersionUID = 1L;
    private transient ValueState<Long> count;

    @Override
    public void open(OpenContext openContext) {
      count = getRuntimeContext().getState(new ValueStateDescriptor<>("count", Types.LONG));
    }

    private void bump(Collector<String> out) throws IOException {
      Long c = count.value();
      long next = (c == null ? 0 : c) + 1;
      count.update(next);
      if (next % 1000 == 0 || next == EXPECTED.get(currentKey)) {
        out.collect(getCurrentKeyString() + "," + next);
      }
    }

    private String getCurrentKeyString() {
      return String.valueOf(currentKey);
    }

    private transient long currentKey;

    @Override
    public void processElement1(Long value, Context ctx, Collector<String> out) throws Exception {
      currentKey = ctx.getCurrentKey();
      bump(out);
    }

    @Override
    public void processElement2(Long value, Context ctx, Collector<String> out) throws Exception {
      currentKey = ctx.getCurrentKey();
      bump(out);
    }
  }

  @ParameterizedTest(name = "{0}, {1} storage, parallelism {2}, {3}, {4}")
  @MethodSource("matrix")
  void countsSurviveRepeatedFailures(
      CheckpointingMode mode,
      String storage,
      int parallelism,
      String alignment,
      String backend,
      @TempDir Path dir)
      throws Exception {
    int failures = 20;
    FAILURES_LEFT.set(failures);
    Path out = dir.resolve("out");
    long n = N_PER_SUBTASK * parallelism;
    Map<Long, Long> expected = new HashMap<>();
    for (long i = 1; i <= n; i++) {
      expected.merge(i % KEYS, 1L, Long::sum);
    }
    for (long i = 1; i <= M; i++) {
      expected.merge(i % KEYS, 1L, Long::sum);
    }
    EXPECTED.clear();
    EXPECTED.putAll(expected);
    StreamEnvironment env = StreamEnvironment.create();
    env.setParallelism(parallelism);
    env.enableCheckpointing(Duration.ofMillis(10), mode);
    env.getCheckpointConfig()
        .setCheckpointStorage(
            storage.equals("filesystem") ? dir.resolve("checkpoints").toUri().toString() : storage);
    env.setRestartStrategy(RestartStrategy.fixedDelay(failures + 5, Duration.ZERO));
    env.getConfiguration()
        .setString("state.backend.type", backend.startsWith("rocksdb") ? "rocksdb" : backend)
        .setString(
            "execution.checkpointing.incremental",
            String.valueOf(backend.equals("rocksdb-incremental")))
        .setString("state.backend.rocksdb.localdir", dir.resolve("rocksdb").toString());
    if (backend.equals("rocksdb-canonical")) {
      env.getConfiguration().setString("state.backend.rocksdb.checkpoint.full-format", "canonical");
    }
    switch (alignment) {
      case "unaligned" -> env.getCheckpointConfig().enableUnalignedCheckpoints();
      case "aligned-timeout-0" ->
          env.getCheckpointConfig()
              .enableUnalignedCheckpoints()
              .setAlignedCheckpointTimeout(Duration.ZERO);
      case "aligned-timeout-2ms" ->
          env.getCheckpointConfig()
              .enableUnalignedCheckpoints()
              .setAlignedCheckpointTimeout(Duration.ofMillis(2));
      default -> {}
    }

    var first =
        env.fromSequence(1, n).map(new FailingMap()).name("Failing Map").keyBy(i -> i % KEYS);
    var second = env.fromSequence(1, M).setParallelism(1).keyBy(i -> i % KEYS);
    first
        .connect(second)
        .process(new CountBoth())
        .name("Count Both")
        .sinkTo(FileSink.exactlyOnce(out))
        .name("Exactly-once Files");

    JobExecutionResult result = env.execute("exactly-once-under-failures");

    Map<Long, Long> maxCount = new HashMap<>();
    Map<String, Integer> lineCounts = new HashMap<>();
    for (String line : committedLines(out)) {
      lineCounts.merge(line, 1, Integer::sum);
      String[] parts = line.split(",");
      maxCount.merge(Long.parseLong(parts[0]), Long.parseLong(parts[1]), Math::max);
    }
    assertThat(result.metrics().get("job.restarts")).isEqualTo(failures);
    if (mode == CheckpointingMode.EXACTLY_ONCE) {
      assertThat(maxCount).isEqualTo(expected);
      // Exactly once: key k's lines are every 1000th count and its final count, each once.
      Map<String, Integer> expectedLines = new HashMap<>();
      expected.forEach(
          (k, total) -> {
            for (long c = 1000; c <= total; c += 1000) {
              expectedLines.put(k + "," + c, 1);
            }
            expectedLines.put(k + "," + total, 1);
          });
      assertThat(lineCounts).isEqualTo(expectedLines);
    } else {
      // At least once: nothing lost; counts may be higher than the truth.
      expected.forEach((k, total) -> assertThat(maxCount.get(k)).isGreaterThanOrEqualTo(total));
    }
  }

  private static List<String> committedLines(Path dir) throws IOException {
    try (Stream<Path> files = Files.list(dir)) {
      return files
          .filter(p -> p.getFileName().toString().startsWith("part-"))
          .flatMap(
              p -> {
                try {
                  return Files.readAllLines(p).stream();
                } catch (IOException e) {
                  throw new java.io.UncheckedIOException(e);
                }
              })
          .toList();
    }
  }
}
