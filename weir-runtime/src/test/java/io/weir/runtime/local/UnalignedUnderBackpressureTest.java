package io.weir.runtime.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.weir.api.JobClient;
import io.weir.api.RestartStrategy;
import io.weir.api.StreamEnvironment;
import io.weir.api.functions.SinkFunction;
import io.weir.runtime.checkpoint.CheckpointCoordinator;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A sink so slow that draining the in-flight backlog takes longer than the checkpoint timeout:
 * aligned barriers wait behind the backlog and time out; unaligned barriers overtake it, the
 * backlog becomes channel state, and checkpoints complete.
 */
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
      CheckpointCoordinator coordinator = ((LocalJob) client).coordinator();
      if (unaligned) {
        await()
            .atMost(Duration.ofSeconds(30))
            .until(
                () ->
                    coordinator.latestCompleted() != null
                        && coordinator.latestCompleted().checkpointId() >= 3);
      } else {
        await().atMost(Duration.ofSeconds(30)).until(() -> coordinator.failuresTotal() >= 3);
        assertThat(coordinator.latestCompleted()).isNull();
      }
    } finally {
      client.cancel().get(30, TimeUnit.SECONDS);
    }
  }
}
