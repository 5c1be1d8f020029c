package io.weir.runtime.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.weir.runtime.checkpoint.BarrierHandler.State;
import io.weir.runtime.network.ChannelEvent.CancelCheckpointMarker;
import io.weir.runtime.network.ChannelEvent.CheckpointBarrier;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The barrier handler step by step: one scenario per rule of the protocol. {@link
 * BarrierAlignmentPropertyTest} checks the same rules over random interleavings.
 */
class BarrierHandlerTest {

  private final RecordingBarrierActions actions = new RecordingBarrierActions();

  private static CheckpointBarrier barrier(long id) {
    return new CheckpointBarrier(id, 1_000L * id, false);
  }

  private static CancelCheckpointMarker cancel(long id) {
    return new CancelCheckpointMarker(id);
  }

  private BarrierHandler exactlyOnce(int channels) {
    return new BarrierHandler(channels, true, actions);
  }

  private BarrierHandler atLeastOnce(int channels) {
    return new BarrierHandler(channels, false, actions);
  }

  private BarrierHandler handler(int channels, boolean exactlyOnce) {
    return new BarrierHandler(channels, exactlyOnce, actions);
  }

  /** Reading a channel the handler blocked would break the model of the input gate. */
  private int read(int channel, int record) {
    assertThat(actions.blocked)
        .as("channel %d is blocked and must not be read", channel)
        .doesNotContain(channel);
    return record;
  }

  @Test
  void needsAtLeastOneChannel() {
    assertThatThrownBy(() -> exactlyOnce(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("at least one channel");
  }

  @ParameterizedTest(name = "exactlyOnce={0}")
  @ValueSource(booleans = {true, false})
  void oneChannelTriggersAtOnce(boolean exactlyOnce) throws Exception {
    BarrierHandler handler = handler(1, exactlyOnce);

    handler.onBarrier(0, barrier(1));
    assertThat(actions.triggered).containsExactly(1L);
    assertThat(actions.blocked).isEmpty();
    assertThat(handler.state()).isEqualTo(State.IDLE);

    handler.onBarrier(0, barrier(2));
    assertThat(actions.triggered).containsExactly(1L, 2L);
    assertThat(actions.aborted).isEmpty();
  }

  @Test
  void alignedBlocksEachChannelThatDeliveredTheBarrierUntilAllHave() throws Exception {
    BarrierHandler handler = exactlyOnce(3);

    handler.onBarrier(1, barrier(1));
    assertThat(handler.state()).isEqualTo(State.ALIGNING);
    assertThat(handler.currentCheckpointId()).isEqualTo(1);
    assertThat(actions.blocked).containsExactly(1);

    handler.onBarrier(0, barrier(1));
    assertThat(actions.blocked).containsExactly(0, 1);
    assertThat(actions.triggered).isEmpty();

    handler.onBarrier(2, barrier(1));
    assertThat(actions.triggered).containsExactly(1L);
    assertThat(actions.blocked).isEmpty();
    assertThat(handler.state()).isEqualTo(State.IDLE);
    assertThat(handler.currentCheckpointId()).isEqualTo(-1);
    assertThat(actions.log).containsSubsequence("block 1", "block 0", "unblockAll");
  }

  @Test
  void triggersWithTheBarrierAsItArrived() throws Exception {
    BarrierHandler handler = exactlyOnce(2);
    AtomicReference<CheckpointBarrier> taken = new AtomicReference<>();
    actions.onTrigger = taken::set;
    CheckpointBarrier savepoint = new CheckpointBarrier(5, 12_345, true);

    handler.onBarrier(0, savepoint);
    handler.onBarrier(1, new CheckpointBarrier(5, 12_345, true));

    assertThat(taken.get()).isEqualTo(savepoint);
  }

  @Test
  void atLeastOnceNeverBlocksAndTriggersOnTheLastBarrier() throws Exception {
    BarrierHandler handler = atLeastOnce(3);

    handler.onBarrier(2, barrier(1));
    assertThat(handler.state()).isEqualTo(State.COLLECTING);
    assertThat(handler.currentCheckpointId()).isEqualTo(1);
    handler.onBarrier(0, barrier(1));
    assertThat(actions.triggered).isEmpty();
    handler.onBarrier(1, barrier(1));

    assertThat(actions.triggered).containsExactly(1L);
    assertThat(actions.everBlocked).isFalse();
    assertThat(actions.log).doesNotContain("unblockAll");
    assertThat(handler.state()).isEqualTo(State.IDLE);
  }

  /**
   * Channel 0 carries [barrier 1, 5], channel 1 carries [7, barrier 1]; the operator sums. The
   * consistent cut of checkpoint 1 is 7. Exactly-once must snapshot 7 whatever the reading order;
   * at-least-once, reading channel 0 first, snapshots 12: the 5 after the barrier is counted and
   * will be counted again when it is replayed after a restore.
   */
  @Test
  void exactlyOnceSnapshotsTheCutWhereAtLeastOnceOvercounts() throws Exception {
    List<Integer> snapshots = new ArrayList<>();
    for (boolean exactlyOnce : new boolean[] {true, false}) {
      RecordingBarrierActions task = new RecordingBarrierActions();
      int[] sum = {0};
      task.onTrigger = b -> snapshots.add(sum[0]);
      BarrierHandler handler = new BarrierHandler(2, exactlyOnce, task);

      handler.onBarrier(0, barrier(1));
      // The task prefers channel 0 as long as the gate lets it read there.
      if (!task.blocked.contains(0)) {
        sum[0] += 5;
      }
      sum[0] += 7; // channel 1
      handler.onBarrier(1, barrier(1));
      if (exactlyOnce) {
        assertThat(task.blocked).isEmpty();
        sum[0] += 5; // channel 0 resumes
      }
      assertThat(task.triggered).containsExactly(1L);
      assertThat(sum[0]).isEqualTo(12);
    }
    assertThat(snapshots).as("exactly-once, then at-least-once").containsExactly(7, 12);
  }

  @Test
  void cancelMarkerAbortsAndReleasesTheAlignment() throws Exception {
    BarrierHandler handler = exactlyOnce(3);
    handler.onBarrier(0, barrier(1));
    handler.onBarrier(1, barrier(1));
    assertThat(actions.blocked).containsExactly(0, 1);

    handler.onCancel(2, cancel(1));

    assertThat(actions.aborted).containsExactly(1L);
    assertThat(actions.blocked).isEmpty();
    assertThat(handler.state()).isEqualTo(State.IDLE);
    assertThat(actions.triggered).isEmpty();

    // Checkpoint 2 aligns as usual afterwards.
    for (int channel = 0; channel < 3; channel++) {
      handler.onBarrier(channel, barrier(2));
    }
    assertThat(actions.triggered).containsExactly(2L);
  }

  @ParameterizedTest(name = "exactlyOnce={0}")
  @ValueSource(booleans = {true, false})
  void cancelBeforeAnyBarrierAbortsOnceAndTheLateBarriersAreIgnored(boolean exactlyOnce)
      throws Exception {
    BarrierHandler handler = handler(3, exactlyOnce);

    handler.onCancel(0, cancel(1));
    handler.onCancel(1, cancel(1));
    // Blocking here would stall channel 2 for a checkpoint that can never complete.
    handler.onBarrier(2, barrier(1));

    assertThat(actions.aborted).as("downstream is told once").containsExactly(1L);
    assertThat(actions.everBlocked).isFalse();
    assertThat(actions.triggered).isEmpty();
    assertThat(handler.state()).isEqualTo(State.IDLE);
  }

  @Test
  void cancelOfAnOlderCheckpointLeavesTheAlignmentOfANewerOneAlone() throws Exception {
    BarrierHandler handler = exactlyOnce(2);
    handler.onBarrier(0, barrier(2));

    handler.onCancel(1, cancel(1));

    assertThat(actions.aborted).isEmpty();
    assertThat(handler.state()).isEqualTo(State.ALIGNING);
    assertThat(actions.blocked).containsExactly(0);
    handler.onBarrier(1, barrier(2));
    assertThat(actions.triggered).containsExactly(2L);
  }

  @Test
  void cancelOfANewerCheckpointReleasesTheAlignmentOfAnOlderOne() throws Exception {
    BarrierHandler handler = exactlyOnce(2);
    handler.onBarrier(0, barrier(1));

    handler.onCancel(1, cancel(2));

    assertThat(actions.aborted).contains(2L);
    assertThat(actions.blocked).isEmpty();
    assertThat(handler.state()).isEqualTo(State.IDLE);
    handler.onBarrier(1, barrier(1));
    handler.onBarrier(1, barrier(2));
    assertThat(actions.triggered).isEmpty();
    assertThat(actions.blocked).isEmpty();
  }

  @Test
  void newerBarrierWhileAligningAbortsTheOlderCheckpointAndAlignsTheNewer() throws Exception {
    BarrierHandler handler = exactlyOnce(3);
    handler.onBarrier(0, barrier(1));
    assertThat(actions.blocked).containsExactly(0);

    // Channel 1 never saw barrier 1 (its upstream skipped it) and delivers barrier 2.
    handler.onBarrier(1, barrier(2));
    assertThat(actions.aborted).containsExactly(1L);
    assertThat(handler.state()).isEqualTo(State.ALIGNING);
    assertThat(handler.currentCheckpointId()).isEqualTo(2);
    assertThat(actions.blocked).as("channel 0 released, channel 1 now blocked").containsExactly(1);

    handler.onBarrier(0, barrier(2));
    handler.onBarrier(2, barrier(1)); // stale: neither blocks nor completes anything
    assertThat(actions.blocked).containsExactly(0, 1);
    assertThat(actions.triggered).isEmpty();

    handler.onBarrier(2, barrier(2));
    assertThat(actions.triggered).containsExactly(2L);
    assertThat(actions.aborted).containsExactly(1L);
    assertThat(actions.blocked).isEmpty();
  }

  @ParameterizedTest(name = "exactlyOnce={0}")
  @ValueSource(booleans = {true, false})
  void staleBarriersAreIgnored(boolean exactlyOnce) throws Exception {
    BarrierHandler handler = handler(2, exactlyOnce);
    handler.onBarrier(0, barrier(2));
    handler.onBarrier(1, barrier(2));
    actions.log.clear();

    handler.onBarrier(0, barrier(1));
    handler.onBarrier(1, barrier(2));
    handler.onBarrier(0, barrier(0));

    assertThat(actions.log).isEmpty();
    assertThat(handler.state()).isEqualTo(State.IDLE);

    // And while a newer checkpoint is in progress.
    handler.onBarrier(0, barrier(3));
    actions.log.clear();
    handler.onBarrier(1, barrier(2));
    assertThat(actions.log).isEmpty();
    assertThat(handler.currentCheckpointId()).isEqualTo(3);
    handler.onBarrier(1, barrier(3));
    assertThat(actions.triggered).containsExactly(2L, 3L);
  }

  @ParameterizedTest(name = "exactlyOnce={0}")
  @ValueSource(booleans = {true, false})
  void aChannelClosedWhileAligningCountsAsAligned(boolean exactlyOnce) throws Exception {
    BarrierHandler handler = handler(3, exactlyOnce);
    handler.onBarrier(0, barrier(1));
    handler.onBarrier(1, barrier(1));

    handler.onChannelClosed(2);

    assertThat(actions.triggered).containsExactly(1L);
    assertThat(actions.blocked).isEmpty();

    // Later checkpoints do not wait for the closed channel either.
    handler.onBarrier(1, barrier(2));
    handler.onBarrier(0, barrier(2));
    assertThat(actions.triggered).containsExactly(1L, 2L);
  }

  @ParameterizedTest(name = "exactlyOnce={0}")
  @ValueSource(booleans = {true, false})
  void aChannelClosedBeforeTheCheckpointIsNotWaitedFor(boolean exactlyOnce) throws Exception {
    BarrierHandler handler = handler(2, exactlyOnce);
    handler.onChannelClosed(1);
    assertThat(handler.state()).isEqualTo(State.IDLE);

    handler.onBarrier(0, barrier(1));

    assertThat(actions.triggered).containsExactly(1L);
    assertThat(actions.blocked).isEmpty();
  }

  @Test
  void abortFromTheTaskReleasesBlockedChannels() throws Exception {
    BarrierHandler handler = exactlyOnce(3);
    handler.onBarrier(0, barrier(1));
    handler.onBarrier(1, barrier(1));
    assertThat(actions.blocked).containsExactly(0, 1);

    handler.abort(1);

    assertThat(actions.blocked).isEmpty();
    assertThat(handler.state()).isEqualTo(State.IDLE);
    assertThat(handler.currentCheckpointId()).isEqualTo(-1);

    // The last barrier of the aborted checkpoint neither blocks nor triggers.
    handler.onBarrier(2, barrier(1));
    assertThat(actions.blocked).isEmpty();
    assertThat(actions.triggered).isEmpty();

    for (int channel = 0; channel < 3; channel++) {
      handler.onBarrier(channel, barrier(2));
    }
    assertThat(actions.triggered).containsExactly(2L);
  }

  @Test
  void abortOfACheckpointNotStartedHereMakesItsBarriersStale() throws Exception {
    BarrierHandler handler = exactlyOnce(2);

    handler.abort(1);
    handler.onBarrier(0, barrier(1));

    assertThat(actions.everBlocked).isFalse();
    assertThat(handler.state()).isEqualTo(State.IDLE);
  }

  @Test
  void abortOfAnOlderCheckpointLeavesTheAlignmentAlone() throws Exception {
    BarrierHandler handler = exactlyOnce(2);
    handler.onBarrier(0, barrier(2));

    handler.abort(1);

    assertThat(actions.blocked).containsExactly(0);
    handler.onBarrier(1, barrier(2));
    assertThat(actions.triggered).containsExactly(2L);
  }

  /**
   * BUG. The coordinator aborts checkpoint 2 (max-concurrent 2: a timeout or a decline elsewhere)
   * while this task is aligning checkpoint 1; {@code InputStreamTask.notifyCheckpointAborted} calls
   * {@code abort(2)}. {@code abort} leaves the alignment of 1 in place (channel 0 stays blocked)
   * but raises {@code latestHandled} to 2, so barrier 1 on channel 1 is then dropped as stale and
   * channel 1 is not blocked: the task reads past its barrier. When channel 1 closes, {@code
   * onChannelClosed} finds no channel missing (0 received, 1 closed) and triggers checkpoint 1 with
   * the post-barrier record in the snapshot: not the consistent cut. (Without the close, channel 0
   * stays blocked until a barrier newer than 2 arrives.)
   */
  @Test
  void taskAbortOfANewerCheckpointMustNotLetTheAlignedOneTakeAnInconsistentSnapshot()
      throws Exception {
    BarrierHandler handler = exactlyOnce(2);
    int[] sum = {0};
    List<Integer> snapshots = new ArrayList<>();
    actions.onTrigger = b -> snapshots.add(sum[0]);

    sum[0] += read(1, 10); // channel 1, before its barrier: part of checkpoint 1
    handler.onBarrier(0, barrier(1));
    handler.abort(2);
    if (!actions.blocked.contains(1)) {
      handler.onBarrier(1, barrier(1));
    }
    if (!actions.blocked.contains(1)) {
      sum[0] += read(1, 100); // channel 1, after its barrier: not part of checkpoint 1
      handler.onChannelClosed(1);
    }

    assertThat(snapshots)
        .as(
            "every snapshot of checkpoint 1 must be the cut 10, taken before the 100 after the"
                + " barrier")
        .allSatisfy(s -> assertThat(s).isEqualTo(10));
  }

  /**
   * BUG, same cause; the shrunk counterexample of {@link
   * BarrierAlignmentPropertyTest#exactlyOnceStaysConsistentUnderCancelsAndAborts}. Channel 0
   * carries [barrier 7, barrier 8], channel 1 carries [cancel 7]. After the task's {@code abort(8)}
   * the cancel marker for 7 is dropped ({@code 7 <= latestHandled}), channel 1's close completes
   * the alignment of 7 (cancelled upstream), {@code completeIfAllArrived} lowers {@code
   * latestHandled} from 8 to 7, and barrier 8 then triggers checkpoint 8, which the task had
   * aborted.
   */
  @Test
  void neitherACancelledNorAnAbortedCheckpointIsTakenAfterATaskAbort() throws Exception {
    BarrierHandler handler = exactlyOnce(2);

    handler.onBarrier(0, barrier(7));
    handler.abort(8);
    handler.onCancel(1, cancel(7));
    handler.onChannelClosed(1);
    if (!actions.blocked.contains(0)) {
      handler.onBarrier(0, barrier(8));
    }

    assertThat(actions.triggered).as("7 was cancelled upstream, 8 aborted by the task").isEmpty();
  }

  /**
   * BUG (at-least-once liveness). With max-concurrent &gt; 1 a fast channel can deliver barrier 2
   * before a slow channel delivered barrier 1. Barrier 1 still arrives on every channel, so
   * at-least-once should snapshot checkpoint 1 when the last barrier 1 arrives (the class javadoc,
   * DESIGN.md, and Flink's CheckpointBarrierTracker, which tracks several checkpoints at once). The
   * handler instead aborts checkpoint 1 as if aligning; under sustained skew every checkpoint is
   * aborted by the next one and none completes.
   */
  @Test
  void atLeastOnceTakesACheckpointWhoseBarrierArrivesEverywhereEvenIfTheNextOneIsAhead()
      throws Exception {
    BarrierHandler handler = atLeastOnce(2);

    handler.onBarrier(0, barrier(1));
    handler.onBarrier(0, barrier(2)); // channel 0 is fast and never blocked
    handler.onBarrier(1, barrier(1));
    handler.onBarrier(1, barrier(2));

    assertThat(actions.aborted).isEmpty();
    assertThat(actions.triggered).containsExactly(1L, 2L);
  }

  // ------------------------------------------------------------- unaligned, aligned with timeout

  private BarrierHandler alignedThenUnaligned(int channels) {
    return new BarrierHandler(
        channels, true, BarrierHandler.Alignment.ALIGNED_THEN_UNALIGNED, actions);
  }

  /**
   * A producer whose aligned barrier waited too long in its output queue converts it; the consumer,
   * still aligning, takes the overtaking barrier as its cue to go unaligned: snapshot now (the
   * barrier forwarded overtaking), release the blocked channel, keep what the channels that
   * delivered their barrier still hold, and record the others until their barrier arrives.
   */
  @Test
  void anOvertakingBarrierDuringAlignmentSwitchesTheTaskToUnaligned() throws Exception {
    BarrierHandler handler = alignedThenUnaligned(3);
    List<CheckpointBarrier> taken = new ArrayList<>();
    actions.onTrigger = taken::add;

    handler.onBarrier(0, barrier(1));
    assertThat(handler.state()).isEqualTo(State.ALIGNING);
    handler.onBarrier(1, barrier(1).asUnaligned());

    assertThat(handler.state()).isEqualTo(State.UNALIGNED);
    assertThat(taken).containsExactly(barrier(1).asUnaligned());
    assertThat(actions.blocked).isEmpty();
    assertThat(actions.log)
        .containsExactly(
            "timer 1", "block 0", "unblockAll", "trigger 1", "keep 0", "keep 1", "record 2");

    handler.onBarrier(2, barrier(1));
    assertThat(actions.log).endsWith("stop 2", "complete 1");
    assertThat(handler.state()).isEqualTo(State.IDLE);
    assertThat(actions.aborted).isEmpty();
  }

  @Test
  void theAlignedTimeoutSwitchesAnAlignmentStillGoingOnToUnaligned() throws Exception {
    BarrierHandler handler = alignedThenUnaligned(2);
    List<CheckpointBarrier> taken = new ArrayList<>();
    actions.onTrigger = taken::add;

    handler.onBarrier(1, barrier(4));
    handler.onAlignmentTimeout(3); // an older checkpoint's timer: ignored
    assertThat(handler.state()).isEqualTo(State.ALIGNING);
    handler.onAlignmentTimeout(4);

    assertThat(taken).containsExactly(barrier(4).asUnaligned());
    assertThat(actions.log).endsWith("unblockAll", "trigger 4", "record 0", "keep 1");
    handler.onBarrier(0, barrier(4));
    assertThat(actions.log).endsWith("stop 0", "complete 4");
    handler.onAlignmentTimeout(4); // too late: the checkpoint is taken
    assertThat(taken).hasSize(1);
  }

  /** Savepoints are always aligned: no timer, and a timeout (or an alignment) never converts. */
  @Test
  void aSavepointStaysAlignedWithAnAlignedTimeout() throws Exception {
    BarrierHandler handler = alignedThenUnaligned(2);
    List<CheckpointBarrier> taken = new ArrayList<>();
    actions.onTrigger = taken::add;
    CheckpointBarrier savepoint = new CheckpointBarrier(5, 5_000L, true);

    handler.onBarrier(0, savepoint);
    handler.onAlignmentTimeout(5);
    assertThat(handler.state()).isEqualTo(State.ALIGNING);
    assertThat(actions.log).doesNotContain("timer 5");
    handler.onBarrier(1, savepoint);

    assertThat(taken).containsExactly(savepoint);
    assertThat(handler.state()).isEqualTo(State.IDLE);
  }
}
