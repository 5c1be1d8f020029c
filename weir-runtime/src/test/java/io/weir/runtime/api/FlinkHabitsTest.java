package io.weir.runtime.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.weir.api.CheckpointConfig;
import io.weir.api.StreamEnvironment;
import io.weir.api.config.CoreOptions;
import io.weir.api.typeutils.Types;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Calls a Flink user writes from habit: fromData, execute() without a name, millisecond setters.
 */
@Timeout(30)
class FlinkHabitsTest {

  @Test
  void aJobWrittenWithFlinksCallsRuns() throws Exception {
    StreamEnvironment env = StreamEnvironment.create();
    CheckpointConfig checkpoints = env.getCheckpointConfig();
    checkpoints.setCheckpointInterval(50);
    checkpoints.setCheckpointTimeout(60_000);
    checkpoints.setMinPauseBetweenCheckpoints(10);
    CollectSink<Integer> doubled = new CollectSink<>();
    CollectSink<String> none = new CollectSink<>();
    env.fromData(1, 2, 3).map(x -> x * 2).sinkTo(doubled);
    env.fromData(List.<String>of(), Types.STRING).sinkTo(none);

    env.execute();

    assertThat(doubled.results()).containsExactlyInAnyOrder(2, 4, 6);
    assertThat(none.results()).isEmpty();
    assertThat(checkpoints.getCheckpointInterval()).isEqualTo(Duration.ofMillis(50));
    assertThat(checkpoints.getCheckpointTimeout()).isEqualTo(Duration.ofMinutes(1));
    assertThat(checkpoints.getMinPauseBetweenCheckpoints()).isEqualTo(Duration.ofMillis(10));
  }

  @Test
  void aJobWithoutANameIsNamedByPipelineNameOrAsFlinkNamesIt() {
    StreamEnvironment unnamed = StreamEnvironment.create();
    StreamEnvironment named = StreamEnvironment.create();
    named.getConfiguration().set(CoreOptions.PIPELINE_NAME, "orders-enrichment");

    // A job without sinks is refused naming the job: the name execute() gave it.
    assertThatThrownBy(unnamed::execute)
        .hasMessageContaining(
            "No sinks defined in job '" + StreamEnvironment.DEFAULT_JOB_NAME + "'");
    assertThatThrownBy(named::executeAsync)
        .hasMessageContaining("No sinks defined in job 'orders-enrichment'");
    assertThatThrownBy(() -> unnamed.getCheckpointConfig().setCheckpointTimeout(0))
        .hasMessageContaining("execution.checkpointing.timeout");
  }
}
