package io.weir.runtime.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;

import io.weir.runtime.checkpoint.CheckpointFinalizer.AbortReason;
import java.io.IOException;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class CheckpointFailureManagerTest {

  @Test
  void onlyTimeoutsDeclinesAndStorageFailuresOfCheckpointsCount() {
    assertThat(CheckpointFailureManager.countsAsFailure(AbortReason.TIMEOUT, false)).isTrue();
    assertThat(CheckpointFailureManager.countsAsFailure(AbortReason.DECLINED, false)).isTrue();
    assertThat(CheckpointFailureManager.countsAsFailure(AbortReason.STORAGE_FAILURE, false))
        .isTrue();
    assertThat(CheckpointFailureManager.countsAsFailure(AbortReason.SUBSUMED, false)).isFalse();
    assertThat(CheckpointFailureManager.countsAsFailure(AbortReason.JOB_STOPPED, false)).isFalse();
    for (AbortReason reason : AbortReason.values()) {
      assertThat(CheckpointFailureManager.countsAsFailure(reason, true))
          .as(reason.name())
          .isFalse();
    }
  }

  @Test
  void failsTheJobOnTheFirstFailureBeyondTheTolerableNumber() {
    CheckpointFailureManager manager = new CheckpointFailureManager(2);

    assertThat(manager.checkpointFailed(1, AbortReason.TIMEOUT, "slow", null)).isEmpty();
    assertThat(manager.checkpointFailed(2, AbortReason.DECLINED, "no", null)).isEmpty();
    assertThat(manager.consecutiveFailures()).isEqualTo(2);
    IOException cause = new IOException("disk full");
    Optional<CheckpointException> failure =
        manager.checkpointFailed(3, AbortReason.STORAGE_FAILURE, "writing failed", cause);

    assertThat(failure).isPresent();
    assertThat(failure.get())
        .hasMessage(
            "Checkpoint 3 failed (STORAGE_FAILURE), 3 checkpoint failure(s) in a row while"
                + " execution.checkpointing.tolerable-failed-checkpoints is 2: writing failed")
        .hasCause(cause);
    // The next attempt starts counting afresh; the total goes on.
    assertThat(manager.consecutiveFailures()).isZero();
    assertThat(manager.failuresTotal()).isEqualTo(3);
  }

  @Test
  void aCompletedCheckpointEndsTheRunButNotTheTotal() {
    CheckpointFailureManager manager = new CheckpointFailureManager(1);
    assertThat(manager.checkpointFailed(1, AbortReason.TIMEOUT, "slow", null)).isEmpty();

    manager.checkpointCompleted();

    assertThat(manager.consecutiveFailures()).isZero();
    assertThat(manager.checkpointFailed(3, AbortReason.TIMEOUT, "slow", null)).isEmpty();
    assertThat(manager.failuresTotal()).isEqualTo(2);
    assertThat(manager.checkpointFailed(4, AbortReason.TIMEOUT, "slow", null)).isPresent();
  }

  @Test
  void withNoFailureToleratedTheFirstFailsTheJob() {
    CheckpointFailureManager manager = new CheckpointFailureManager(0);

    assertThat(manager.checkpointFailed(1, AbortReason.DECLINED, "no", null)).isPresent();
    assertThat(manager.failuresTotal()).isEqualTo(1);
  }
}
