package io.weir.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.weir.api.RestartStrategy;
import io.weir.api.StreamEnvironment;
import io.weir.api.functions.CheckpointedFunction;
import io.weir.api.functions.MapFunction;
import io.weir.api.sink.DiscardingSink;
import io.weir.api.state.FunctionInitializationContext;
import io.weir.api.state.FunctionSnapshotContext;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A checkpoint that expires fails the job with a message that names each subtask it waited for and
 * where that subtask runs, so that an operator finds the slow TaskManager: on a mini cluster of two
 * TaskManagers each one's name and address, in one process the local task executor.
 */
class ExpiredCheckpointLocationTest {

  /**
   * Holds every subtask's snapshot until the test ends: no subtask acknowledges a checkpoint.
   * Holding records instead would race with the first trigger, whose barrier passes a source
   * subtask that has not emitted its first record yet (seen in CI: subtask 1 acknowledged).
   */
  private static volatile CountDownLatch gate;

  /** A map whose snapshot waits at the gate; the job's cancellation interrupts it. */
  static final class HeldAtTheGate implements MapFunction<Long, Long>, CheckpointedFunction {
    private static final long serialVersionUID = 1L;

    @Override
    public Long map(Long value) {
      return value;
    }

    @Override
    public void snapshotState(FunctionSnapshotContext context) throws Exception {
      gate.await();
    }

    @Override
    public void initializeState(FunctionInitializationContext context) {}
  }

  @BeforeEach
  void closeTheGate() {
    gate = new CountDownLatch(1);
  }

  @AfterEach
  void openTheGate() {
    gate.countDown();
    MiniCluster.clearContext();
  }

  /** Runs a job of parallelism 2 whose first checkpoint expires; returns how it failed. */
  private static Throwable runUntilTheFirstCheckpointExpires() {
    StreamEnvironment env = StreamEnvironment.create();
    env.setParallelism(2);
    env.enableCheckpointing(Duration.ofMillis(20));
    env.getCheckpointConfig().setCheckpointTimeout(Duration.ofMillis(200));
    env.setRestartStrategy(RestartStrategy.none());
    env.fromSequence(1, 100).map(new HeldAtTheGate()).sinkTo(new DiscardingSink<>());
    return catchThrowable(() -> env.execute("held-at-the-gate"));
  }

  @Test
  void onTwoTaskManagersItNamesTheTaskManagerOfEachSubtask() throws Exception {
    try (MiniCluster cluster = new MiniCluster(2)) {
      cluster.setAsContext();

      Throwable failure = runUntilTheFirstCheckpointExpires();

      assertThat(failure)
          .hasStackTraceContaining("TIMEOUT")
          .hasStackTraceContaining("(1/2) on minicluster-0 (127.0.0.1:")
          .hasStackTraceContaining("(2/2) on minicluster-1 (127.0.0.1:");
    }
  }

  @Test
  void inOneProcessItNamesTheLocalTaskExecutor() {
    Throwable failure = runUntilTheFirstCheckpointExpires();

    assertThat(failure)
        .hasStackTraceContaining("TIMEOUT")
        .hasStackTraceContaining("(1/2) on local (localhost), ")
        .hasStackTraceContaining("(2/2) on local (localhost)");
  }
}
