package io.weir.runtime.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.weir.api.CheckpointStatistics.SubtaskCheckpointStatistics;
import io.weir.runtime.checkpoint.CheckpointCoordinator.OperatorInfo;
import io.weir.runtime.checkpoint.CheckpointCoordinator.TaskKey;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Test;

class PendingCheckpointTest {

  private static final TaskKey SOURCE_0 = new TaskKey(0, 0);
  private static final TaskKey SOURCE_1 = new TaskKey(0, 1);
  private static final TaskKey SINK_0 = new TaskKey(1, 0);
  private static final List<OperatorInfo> OPERATORS =
      List.of(
          new OperatorInfo("source-uid", "Source", 0, 2, 128),
          new OperatorInfo("sink-uid", "Sink", 1, 1, 128));
  private static final CheckpointOptions ALIGNED =
      CheckpointOptions.checkpoint(BarrierHandler.Alignment.ALIGNED);
  private static final OperatorSubtaskState STATE = new OperatorSubtaskState(null, null, false);

  private final PendingCheckpoint checkpoint =
      new PendingCheckpoint(7, 1_000, 1_000, Set.of(SOURCE_0, SOURCE_1, SINK_0), ALIGNED, 0);

  @Test
  void isFullyAcknowledgedOnceEveryTaskAcknowledgedOnce() {
    SubtaskCheckpointStatistics measured =
        new SubtaskCheckpointStatistics("Source", 0, 1, 2, false, 0, 3, 4, 10, 10);

    assertThat(checkpoint.acknowledge(SOURCE_0, Map.of("source-uid", STATE), measured)).isTrue();
    assertThat(checkpoint.acknowledge(SOURCE_0, Map.of(), null)).as("a duplicate").isFalse();
    assertThat(checkpoint.acknowledge(new TaskKey(2, 0), Map.of(), null))
        .as("not of this checkpoint")
        .isFalse();
    assertThat(checkpoint.awaits(SOURCE_0)).isFalse();
    assertThat(checkpoint.notYetAcknowledged()).containsExactlyInAnyOrder(SOURCE_1, SINK_0);
    assertThat(checkpoint.isFullyAcknowledged()).isFalse();

    assertThat(checkpoint.acknowledge(SOURCE_1, Map.of(), null)).isTrue();
    assertThat(checkpoint.acknowledge(SINK_0, Map.of(), null)).isTrue();

    assertThat(checkpoint.isFullyAcknowledged()).isTrue();
    assertThat(checkpoint.subtaskStatistics()).containsExactly(measured);
    assertThat(checkpoint.acknowledgedStates()).hasSize(3);
  }

  @Test
  void aCompletedCheckpointListsEveryOperatorAndSubtask() {
    checkpoint.acknowledge(SOURCE_0, Map.of("source-uid", STATE), null);
    checkpoint.acknowledge(SOURCE_1, Map.of(), null);
    checkpoint.acknowledge(SINK_0, Map.of(), null);

    CompletedCheckpoint completed = checkpoint.toCompleted("job", OPERATORS, Set.of(SINK_0));

    assertThat(completed.checkpointId()).isEqualTo(7);
    assertThat(completed.timestamp()).isEqualTo(1_000);
    assertThat(completed.savepoint()).isFalse();
    assertThat(completed.operator("source-uid").subtasks())
        .containsExactly(STATE, OperatorSubtaskState.EMPTY);
    assertThat(completed.operator("sink-uid").subtasks())
        .containsExactly(OperatorSubtaskState.FINISHED);
  }

  @Test
  void cancelsItsTimeoutWhenThereIsOne() {
    checkpoint.cancelTimeout(); // none set yet
    int[] cancelled = {0};
    checkpoint.setTimeout(() -> cancelled[0]++);

    checkpoint.cancelTimeout();

    assertThat(cancelled[0]).isEqualTo(1);
  }

  @Test
  void aSavepointTellsWhoeverTriggeredItItsPath() throws Exception {
    CompletableFuture<String> result = new CompletableFuture<>();
    PendingSavepoint savepoint =
        new PendingSavepoint(
            8,
            2_000,
            2_000,
            Set.of(SINK_0),
            CheckpointOptions.savepoint(CheckpointOptions.Type.SAVEPOINT, "/sp/savepoint-8"),
            0,
            "/sp/savepoint-8",
            result);
    assertThat(savepoint.isSavepoint()).isTrue();
    assertThat(savepoint.isStopping()).isFalse();
    assertThat(savepoint.acknowledge(SINK_0, Map.of(), null)).isTrue();
    assertThat(savepoint.toCompleted("job", OPERATORS, Set.of()).savepoint()).isTrue();

    savepoint.committed("/sp/savepoint-8", 0);
    savepoint.completed();

    assertThat(result.get()).isEqualTo("/sp/savepoint-8");
  }

  @Test
  void aFailedSavepointTellsWhy() {
    CompletableFuture<String> result = new CompletableFuture<>();
    PendingSavepoint savepoint =
        new PendingSavepoint(
            9,
            2_000,
            2_000,
            Set.of(SINK_0),
            CheckpointOptions.savepoint(CheckpointOptions.Type.SAVEPOINT, "/sp/savepoint-9"),
            0,
            "/sp/savepoint-9",
            result);

    savepoint.failed(new CheckpointException("Savepoint 9 failed", null));

    assertThatThrownBy(result::get)
        .isInstanceOf(ExecutionException.class)
        .hasCauseInstanceOf(CheckpointException.class);
  }

  @Test
  void aSuspendingOrTerminatingSavepointStopsTheJob() {
    for (CheckpointOptions.Type type :
        List.of(
            CheckpointOptions.Type.SAVEPOINT_SUSPEND, CheckpointOptions.Type.SAVEPOINT_TERMINATE)) {
      PendingSavepoint savepoint =
          new PendingSavepoint(
              10,
              2_000,
              2_000,
              Set.of(SINK_0),
              CheckpointOptions.savepoint(type, "/sp/savepoint-10"),
              0,
              "/sp/savepoint-10",
              new CompletableFuture<>());

      assertThat(savepoint.isStopping()).as(type.name()).isTrue();
    }
  }
}
