package io.weir.runtime.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;

import io.weir.runtime.checkpoint.CheckpointTriggerDecider.RetryAfter;
import io.weir.runtime.checkpoint.CheckpointTriggerDecider.TriggerNow;
import io.weir.runtime.checkpoint.CheckpointTriggerDecider.WaitForEnd;
import org.junit.jupiter.api.Test;

/** The trigger decider with a time the test moves by hand. */
class CheckpointTriggerDeciderTest {

  private static final long INTERVAL = 1_000;
  private static final long MIN_PAUSE = 300;

  private final CheckpointTriggerDecider decider =
      new CheckpointTriggerDecider(INTERVAL, MIN_PAUSE, 2);
  private long now = 100_000;

  @Test
  void theFirstCheckpointWaitsForNoPause() {
    assertThat(decider.initialDelay()).isEqualTo(INTERVAL);
    assertThat(decider.onTimer(0, now)).isEqualTo(new TriggerNow(INTERVAL));
    assertThat(decider.delayUntilPauseOver(now)).isZero();
  }

  @Test
  void minPauseRunsFromTheEndOfTheLastCheckpoint() {
    decider.checkpointEnded(now);
    now += 100;

    assertThat(decider.onTimer(0, now)).isEqualTo(new RetryAfter(200));
    assertThat(decider.delayUntilPauseOver(now)).isEqualTo(200);

    now += 200;
    assertThat(decider.onTimer(0, now)).isEqualTo(new TriggerNow(INTERVAL));
    assertThat(decider.delayUntilPauseOver(now)).isZero();
    assertThat(decider.delayAfterEnd()).isEqualTo(MIN_PAUSE);
  }

  @Test
  void waitsForAnEndWhileMaxConcurrentAreInFlight() {
    assertThat(decider.onTimer(1, now)).isEqualTo(new TriggerNow(INTERVAL));
    assertThat(decider.onTimer(2, now)).isEqualTo(new WaitForEnd());
    // Also when min pause has not passed: the end of one reschedules anyway.
    decider.checkpointEnded(now);
    assertThat(decider.onTimer(2, now)).isEqualTo(new WaitForEnd());
  }

  @Test
  void noCheckpointStartsWhileAStopWithSavepointIsPending() {
    decider.stopWithSavepointTriggered(5);
    assertThat(decider.stopping()).isTrue();
    assertThat(decider.onTimer(0, now)).isEqualTo(new WaitForEnd());

    decider.savepointAborted(4); // another savepoint
    assertThat(decider.stopping()).isTrue();

    decider.savepointAborted(5);
    assertThat(decider.stopping()).isFalse();
    assertThat(decider.onTimer(0, now)).isEqualTo(new TriggerNow(INTERVAL));
  }

  @Test
  void aCompletedStopWithSavepointKeepsCheckpointsOffUntilTheJobFailsOverAndRunsAgain() {
    decider.stopWithSavepointTriggered(5);
    decider.checkpointEnded(now); // the savepoint completed: the job ends, unless a task fails
    assertThat(decider.onTimer(0, now + INTERVAL)).isEqualTo(new WaitForEnd());

    decider.attemptStarted();
    assertThat(decider.stopping()).isFalse();
    assertThat(decider.onTimer(0, now + INTERVAL)).isEqualTo(new TriggerNow(INTERVAL));
  }

  @Test
  void anIntervalOfZeroTurnsPeriodicCheckpointsOff() {
    assertThat(decider.periodic()).isTrue();
    assertThat(new CheckpointTriggerDecider(0, MIN_PAUSE, 1).periodic()).isFalse();
    assertThat(new CheckpointTriggerDecider(-1, MIN_PAUSE, 1).periodic()).isFalse();
  }
}
