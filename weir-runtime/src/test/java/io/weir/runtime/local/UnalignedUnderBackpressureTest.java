package io.weir.runtime.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.weir.api.CheckpointStatistics;
import io.weir.api.JobClient;
import io.weir.api.RestartStrategy;
import io.weir.api.StreamEnvironment;
import io.weir.api.functions.SinkFunction;
import io.weir.runtime.checkpoint.CheckpointCoordinator;
import io.weir.runtime.jobmaster.JobMaster;
import io.weir.runtime.testing.matrix.TestMatrix;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A sink so slow that draining the in-flight backlog takes longer than the checkpoint timeout:
 * aligned barriers wait behind the backlog and time out; unaligned barriers overtake it, the
 * backlog becomes channel state, and checkpoints complete.
 */
@TestMatrix
class UnalignedUnderBackpressureTest {

  @ParameterizedTest(name = "unaligned={0}")
  @ValueSource(booleans = {false, true})
  void onlyUnalignedCheckpointsCompleteUnderHeavyBackpressure(boolean unaligned) throws Exception {
    StreamEnvironment env = StreamEnvironment.create();
    env.setParallelism(2);
    env.enableCheckpointing(Duration.ofMillis(100));
    env.getCheckpointConfig()
        .setCheckpointTimeout(Duration.ofMillis(300))
        .setTolerableCheckpointFailureNumber(1000);
    if (unaligned) {
      env.getCheckpointConfig().enableUnalignedCheckpoints();
    }
    env.setRestartStrategy(RestartStrategy.none());
    env.fromSequence(1, Long.MAX_VALUE - 1)
        .keyBy(i -> i % 100)
        .addSink(
            (SinkFunction<Long>)
                (value, ctx) -> {
                  if (value % 10 == 0) {
                    Thread.sleep(1); // the workload: a slow sink, ~10 000 records/s
                  }
                });
    JobClient client = env.executeAsync(unaligned ? "unaligned" : "aligned");
    try {
      CheckpointCoordinator coordinator = ((JobMaster) client).coordinator();
      if (unaligned) {
        await()
            .atMost(Duration.ofSeconds(30))
            .until(
                () ->
                    coordinator.latestCompleted() != null
                        && coordinator.latestCompleted().checkpointId() >= 3);
        // Statistics: completed, unaligned, with in-flight data persisted and per-subtask parts.
        List<CheckpointStatistics> stats = client.getCheckpointStatistics();
        CheckpointStatistics done =
            stats.stream()
                .filter(c -> c.status() == CheckpointStatistics.Status.COMPLETED)
                .reduce((a, b) -> b)
                .orElseThrow();
        assertThat(done.unaligned()).isTrue();
        assertThat(done.channelStateBytes()).isPositive();
        assertThat(done.endToEndDurationMillis()).isNotNegative();
        assertThat(done.subtasks()).hasSize(4);
        assertThat(done.subtasks())
            .allSatisfy(
                s -> {
                  assertThat(s.syncDurationMillis()).isNotNegative();
                  assertThat(s.asyncDurationMillis()).isNotNegative();
                  assertThat(s.startDelayMillis()).isNotNegative();
                });
      } else {
        await().atMost(Duration.ofSeconds(30)).until(() -> coordinator.failuresTotal() >= 3);
        assertThat(coordinator.latestCompleted()).isNull();
        assertThat(client.getCheckpointStatistics())
            .filteredOn(c -> c.status() == CheckpointStatistics.Status.FAILED)
            .hasSizeGreaterThanOrEqualTo(3)
            .allSatisfy(c -> assertThat(c.endToEndDurationMillis()).isGreaterThanOrEqualTo(300));
      }
    } finally {
      client.cancel().get(30, TimeUnit.SECONDS);
    }
  }
}
