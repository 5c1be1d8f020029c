package io.weir.runtime.recovery;

import static io.weir.runtime.recovery.RecoveryTestSupport.WAIT;
import static io.weir.runtime.recovery.RecoveryTestSupport.expectedCounts;
import static io.weir.runtime.recovery.RecoveryTestSupport.finalCounts;
import static io.weir.runtime.recovery.RecoveryTestSupport.firstCounts;
import static io.weir.runtime.recovery.RecoveryTestSupport.jobDir;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.weir.api.CheckpointStatistics;
import io.weir.api.CheckpointStatistics.SubtaskCheckpointStatistics;
import io.weir.api.ExternalizedCheckpointRetention;
import io.weir.api.JobClient;
import io.weir.api.JobExecutionResult;
import io.weir.api.RestartStrategy;
import io.weir.api.StreamEnvironment;
import io.weir.api.config.CheckpointingOptions;
import io.weir.api.config.CoreOptions;
import io.weir.api.config.MemorySize;
import io.weir.api.functions.Collector;
import io.weir.api.functions.KeyedProcessFunction;
import io.weir.api.functions.OpenContext;
import io.weir.api.state.ValueState;
import io.weir.api.state.ValueStateDescriptor;
import io.weir.api.typeutils.Types;
import io.weir.runtime.api.CollectSink;
import io.weir.runtime.recovery.RecoveryTestSupport.Count;
import io.weir.runtime.recovery.RecoveryTestSupport.CountingSource;
import io.weir.runtime.testing.matrix.TestMatrix;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The aligned checkpoint timeout at the source side: a source whose output is back-pressured by a
 * slow consumer (two credits of 1 KiB per channel) sends aligned barriers, which wait behind the
 * queued buffers. Once a barrier has waited longer than the aligned timeout, the source converts it
 * into an overtaking one and keeps the buffers it overtook as its in-flight data, so the checkpoint
 * completes unaligned with in-flight bytes from the source subtask — the consumer has a single
 * input channel, so without the conversion the source's barrier would simply arrive, aligned, after
 * the backlog. Restoring from such a checkpoint replays those buffers before the source's new
 * records, and every key's count ends exactly right.
 */
@Timeout(120)
@TestMatrix
class AlignedTimeoutAtSourceTest {

  static final int KEYS = 7;

  /** Records of the source; far more than the slow first job can count. */
  static final long LIMIT = 20_000;

  @TempDir Path checkpoints;
  @TempDir Path resumedCheckpoints;

  /**
   * Counts per key in a {@code ValueState<Long>} and emits the count, spending {@code
   * nanosPerRecord} per record: the workload that back-pressures the source.
   */
  static final class SlowCounter extends KeyedProcessFunction<Long, Long, Count> {
    private static final long serialVersionUID = 1L;

    private final long nanosPerRecord;
    private transient ValueState<Long> count;

    SlowCounter(long nanosPerRecord) {
      this.nanosPerRecord = nanosPerRecord;
    }

    @Override
    public void open(OpenContext openContext) {
      count = getRuntimeContext().getState(new ValueStateDescriptor<>("count", Types.LONG));
    }

    @Override
    public void processElement(Long value, Context ctx, Collector<Count> out) throws Exception {
      if (nanosPerRecord > 0) {
        LockSupport.parkNanos(nanosPerRecord);
      }
      Long old = count.value();
      long n = (old == null ? 0 : old) + 1;
      count.update(n);
      out.collect(new Count(ctx.getCurrentKey(), n, getRuntimeContext().getAttemptNumber()));
    }
  }

  private static StreamEnvironment environment(Path storage) {
    StreamEnvironment env = StreamEnvironment.create();
    env.setParallelism(1);
    env.setRestartStrategy(RestartStrategy.none());
    env.enableCheckpointing(Duration.ofMillis(50));
    env.getCheckpointConfig()
        .enableUnalignedCheckpoints()
        .setAlignedCheckpointTimeout(Duration.ofMillis(10))
        .setCheckpointStorage(storage.toUri().toString())
        .setExternalizedCheckpointRetention(ExternalizedCheckpointRetention.RETAIN_ON_CANCELLATION);
    env.getConfiguration().set(CheckpointingOptions.MAX_RETAINED_CHECKPOINTS, 1000);
    env.getConfiguration().set(CoreOptions.BUFFERS_PER_CHANNEL, 2);
    env.getConfiguration().set(CoreOptions.NETWORK_BUFFER_SIZE, new MemorySize(1024));
    return env;
  }

  private static void pipeline(
      StreamEnvironment env, CountingSource source, long nanosPerRecord, CollectSink<Count> sink) {
    env.fromSource(source, "numbers", Types.LONG)
        .uid("source")
        .keyBy(v -> v % KEYS, Types.LONG)
        .process(new SlowCounter(nanosPerRecord))
        .uid("counter")
        .name("counter")
        .sinkTo(sink);
  }

  /** The source subtask's part of a completed checkpoint that it took unaligned with data. */
  private static Optional<CheckpointStatistics> unalignedAtSource(List<CheckpointStatistics> all) {
    return all.stream()
        .filter(c -> c.status() == CheckpointStatistics.Status.COMPLETED)
        .filter(
            c ->
                c.subtasks().stream()
                    .anyMatch(
                        s ->
                            s.taskName().startsWith("Source: numbers")
                                && s.unaligned()
                                && s.channelStateBytes() > 0))
        .reduce((a, b) -> b);
  }

  @Test
  void backPressuredSourceConvertsItsBarrierAndTheCheckpointRestoresExactly() throws Exception {
    // A slow count: the source's aligned barriers wait behind its queued output.
    StreamEnvironment env = environment(checkpoints);
    CountingSource source = CountingSource.unbounded(LIMIT);
    CollectSink<Count> slowSink = new CollectSink<>();
    pipeline(env, source, 1_000_000, slowSink);
    JobClient client = env.executeAsync("back-pressured-source");
    Path jobDir = jobDir(checkpoints, client);
    CheckpointStatistics converted;
    try {
      await()
          .atMost(WAIT)
          .until(() -> unalignedAtSource(client.getCheckpointStatistics()).isPresent());
      converted = unalignedAtSource(client.getCheckpointStatistics()).orElseThrow();
    } finally {
      client.cancel().get(30, TimeUnit.SECONDS);
    }
    long id = converted.checkpointId();
    SubtaskCheckpointStatistics atSource =
        converted.subtasks().stream()
            .filter(s -> s.taskName().startsWith("Source: numbers"))
            .findFirst()
            .orElseThrow();
    assertThat(atSource.unaligned()).isTrue();
    assertThat(atSource.channelStateBytes()).isPositive();
    assertThat(converted.unaligned()).isTrue();
    long sourcePosition = source.control().progress(id);
    assertThat(sourcePosition).as("records the source emitted before its barrier").isPositive();

    // Resume from that checkpoint, fast, to the end of the source.
    StreamEnvironment resumed = environment(resumedCheckpoints);
    resumed
        .getConfiguration()
        .set(CheckpointingOptions.SAVEPOINT_PATH, jobDir.resolve("chk-" + id).toString());
    CollectSink<Count> sink = new CollectSink<>();
    pipeline(resumed, CountingSource.bounded(LIMIT), 0, sink);
    JobExecutionResult result = resumed.execute("resumed-count");

    assertThat(result.metrics()).containsEntry("job.lastRestoredCheckpoint", id);
    Map<Long, Long> expected = expectedCounts(LIMIT, KEYS);
    assertThat(finalCounts(sink.results()))
        .as("every record counted exactly once across the restore")
        .isEqualTo(expected);
    long countedBeforeRestore = 0;
    for (long first : firstCounts(sink.results()).values()) {
      countedBeforeRestore += first - 1;
    }
    assertThat(sink.size()).isEqualTo((int) (LIMIT - countedBeforeRestore));
    assertThat(sourcePosition - countedBeforeRestore)
        .as(
            "records the source sent before its barrier and the counter had not counted yet:"
                + " replayed from the source's in-flight data")
        .isPositive();
  }
}
