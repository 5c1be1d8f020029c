package io.weir.runtime.task;

import static org.assertj.core.api.Assertions.assertThat;

import io.weir.runtime.task.TaskLifecycle.CheckpointAborted;
import io.weir.runtime.task.TaskLifecycle.CheckpointCompleted;
import io.weir.runtime.task.TaskLifecycle.DrainRequested;
import io.weir.runtime.task.TaskLifecycle.InputEnded;
import io.weir.runtime.task.TaskLifecycle.Phase;
import io.weir.runtime.task.TaskLifecycle.SuspendedForSavepoint;
import org.junit.jupiter.api.Test;

/** The phases a subtask's input goes through, event by event, without a task. */
class TaskLifecycleTest {

  private final TaskLifecycle lifecycle = new TaskLifecycle();

  @Test
  void aBoundedInputEndsAndFinishesWhenItsFinalCheckpointCompletes() {
    assertThat(lifecycle.on(new CheckpointCompleted(false))).isEqualTo(Phase.RUNNING);
    assertThat(lifecycle.on(new InputEnded())).isEqualTo(Phase.INPUT_ENDED);
    assertThat(lifecycle.inputEnded()).isTrue();
    assertThat(lifecycle.mayFinish(true)).isFalse();
    assertThat(lifecycle.mayFinish(false)).as("without checkpointing").isTrue();

    assertThat(lifecycle.on(new CheckpointCompleted(false))).isEqualTo(Phase.INPUT_ENDED);
    assertThat(lifecycle.on(new CheckpointCompleted(true)))
        .isEqualTo(Phase.FINAL_CHECKPOINT_COMPLETED);
    assertThat(lifecycle.mayFinish(true)).isTrue();
  }

  @Test
  void aStopWithSavepointSuspendsTheSourceUntilItCompletesThenLeavesWithoutEndingTheInput() {
    assertThat(lifecycle.on(new SuspendedForSavepoint(4))).isEqualTo(Phase.SUSPENDED);
    assertThat(lifecycle.suspended()).isTrue();
    assertThat(lifecycle.leavesInputLoop()).isFalse();

    assertThat(lifecycle.on(new CheckpointAborted(3)))
        .as("another checkpoint's abort")
        .isEqualTo(Phase.SUSPENDED);
    assertThat(lifecycle.on(new CheckpointCompleted(true))).isEqualTo(Phase.STOPPED_WITH_SAVEPOINT);
    assertThat(lifecycle.leavesInputLoop()).isTrue();
    assertThat(lifecycle.inputEnded()).isFalse();
  }

  @Test
  void anAbortedStopWithSavepointLetsTheSourceReadOn() {
    lifecycle.on(new SuspendedForSavepoint(4));
    assertThat(lifecycle.on(new CheckpointAborted(4))).isEqualTo(Phase.RUNNING);
    assertThat(lifecycle.suspended()).isFalse();
    assertThat(lifecycle.on(new CheckpointAborted(4))).isEqualTo(Phase.RUNNING);
  }

  @Test
  void aDrainingSavepointEndsTheInputFirstAndFinishesWhenTheSavepointCompletes() {
    assertThat(lifecycle.drainBarrier()).isNull();
    assertThat(lifecycle.on(new DrainRequested(null))).isEqualTo(Phase.DRAIN_REQUESTED);
    assertThat(lifecycle.leavesInputLoop()).isTrue();

    assertThat(lifecycle.on(new InputEnded())).isEqualTo(Phase.DRAINED_FOR_SAVEPOINT);
    assertThat(lifecycle.drainBarrier()).isNull();
    assertThat(lifecycle.mayFinish(false))
        .as("even without periodic checkpoints, the savepoint must complete")
        .isFalse();
    assertThat(lifecycle.on(new CheckpointCompleted(true)))
        .isEqualTo(Phase.FINAL_CHECKPOINT_COMPLETED);
    assertThat(lifecycle.mayFinish(false)).isTrue();
  }

  @Test
  void aSynchronousSavepointAfterTheEndOfInputSuspendsNothing() {
    lifecycle.on(new InputEnded());
    assertThat(lifecycle.on(new SuspendedForSavepoint(9))).isEqualTo(Phase.INPUT_ENDED);
    assertThat(lifecycle.on(new DrainRequested(null))).isEqualTo(Phase.INPUT_ENDED);
    assertThat(lifecycle.on(new InputEnded())).isEqualTo(Phase.INPUT_ENDED);
  }
}
