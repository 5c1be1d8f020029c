package io.weir.runtime.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;

import io.weir.runtime.checkpoint.CheckpointCoordinator.OperatorInfo;
import io.weir.runtime.checkpoint.CheckpointCoordinator.TaskKey;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Which subtasks a checkpoint waits for, as subtasks end their input and finish. */
class CheckpointPlanTest {

  private static final TaskKey SOURCE_0 = new TaskKey(0, 0);
  private static final TaskKey SOURCE_1 = new TaskKey(0, 1);
  private static final TaskKey SINK_0 = new TaskKey(1, 0);

  private final CheckpointPlan plan =
      new CheckpointPlan(
          List.of(
              new OperatorInfo("source", "Source", 0, 2, 128),
              new OperatorInfo("map", "Map", 0, 2, 128),
              new OperatorInfo("sink", "Sink", 1, 1, 128)));

  @Test
  void aCheckpointWaitsForEveryDeployedSubtaskThatHasNotFinished() {
    plan.attemptDeployed(Set.of(SOURCE_0, SOURCE_1, SINK_0));
    assertThat(plan.tasksToWaitFor()).containsExactlyInAnyOrder(SOURCE_0, SOURCE_1, SINK_0);

    plan.taskFinished(SOURCE_0);

    assertThat(plan.tasksToWaitFor()).containsExactlyInAnyOrder(SOURCE_1, SINK_0);
    assertThat(plan.finishedTasks()).containsExactly(SOURCE_0);
  }

  @Test
  void onlyTheLastSubtaskToEndItsInputAsksForTheFinalCheckpoint() {
    plan.attemptDeployed(Set.of(SOURCE_0, SOURCE_1, SINK_0));

    assertThat(plan.inputEnded(SOURCE_0, 0)).isFalse();
    assertThat(plan.inputEnded(SOURCE_1, 0)).isFalse();
    assertThat(plan.inputEnded(new TaskKey(5, 0), 0)).as("not of this attempt").isFalse();
    assertThat(plan.inputEnded(SINK_0, 0)).isTrue();
    assertThat(plan.inputEnded(SINK_0, 0)).as("said once").isFalse();
  }

  @Test
  void aNewAttemptStartsWithNoSubtaskFinishedOrEnded() {
    plan.attemptDeployed(Set.of(SOURCE_0, SINK_0));
    plan.taskFinished(SOURCE_0);
    plan.inputEnded(SINK_0, 0);

    plan.attemptDeployed(Set.of(SOURCE_0, SINK_0));

    assertThat(plan.tasksToWaitFor()).containsExactlyInAnyOrder(SOURCE_0, SINK_0);
    assertThat(plan.inputEnded(SOURCE_0, 0)).isFalse();
    assertThat(plan.inputEnded(SINK_0, 0)).isTrue();
  }

  @Test
  void aFinishedSubtaskStandsAsFinishedOnlyInCheckpointsTriggeredAfterItsInputEnded() {
    plan.attemptDeployed(Set.of(SOURCE_0, SINK_0));
    assertThat(plan.inputEnded(SOURCE_0, 7)).isFalse();
    plan.taskFinished(SOURCE_0);

    assertThat(plan.finishedBefore(SOURCE_0, 7)).as("triggered before its end was known").isFalse();
    assertThat(plan.finishedBefore(SOURCE_0, 8)).isTrue();
    assertThat(plan.finishedBefore(SINK_0, 8)).as("its input never ended").isFalse();
  }

  @Test
  void aFinishedSubtaskContributesEveryOperatorOfItsVertexFinished() {
    assertThat(plan.finishedStates(SOURCE_1))
        .isEqualTo(
            Map.of("source", OperatorSubtaskState.FINISHED, "map", OperatorSubtaskState.FINISHED));
    assertThat(plan.finishedStates(SINK_0))
        .isEqualTo(Map.of("sink", OperatorSubtaskState.FINISHED));
  }
}
