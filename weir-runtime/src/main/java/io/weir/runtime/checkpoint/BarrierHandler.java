package io.weir.runtime.checkpoint;

import io.weir.runtime.network.ChannelEvent.CancelCheckpointMarker;
import io.weir.runtime.network.ChannelEvent.CheckpointBarrier;
import java.util.BitSet;

/**
 * Decides, from the barriers arriving on the input channels of one task, when the task takes its
 * snapshot. A state machine without threads or clocks: the task feeds it events in the order it
 * reads them and it answers through {@link Actions}.
 *
 * <p>Exactly-once (aligned): a channel that delivered barrier n is blocked — its data stays in the
 * bounded channel queue — until barrier n arrived on every open channel; then the task snapshots
 * and every channel is released. At-least-once: nothing is blocked; the snapshot is taken when the
 * last channel delivered barrier n, so records after the barrier on fast channels may be in the
 * snapshot and are replayed after a restore. Unaligned checkpoints and aligned with timeout fit in
 * as further states.
 */
public final class BarrierHandler {

  /** What the handler asks of its task. */
  public interface Actions {
    /** Stop reading channel {@code channel} until {@link #unblockAll}. */
    void block(int channel);

    /** Resume reading every channel. */
    void unblockAll();

    /** Take the snapshot for {@code barrier} now and forward the barrier. */
    void triggerCheckpoint(CheckpointBarrier barrier) throws Exception;

    /** Give up checkpoint {@code checkpointId} and tell downstream. */
    void abortCheckpoint(long checkpointId, String reason) throws Exception;
  }

  /** Where the handler is. */
  public enum State {
    /** No checkpoint in progress at this task. */
    IDLE,
    /** Exactly-once: waiting for barrier n on the channels that did not deliver it yet. */
    ALIGNING,
    /** At-least-once: counting the channels that delivered barrier n, blocking none. */
    COLLECTING
  }

  private final int numberOfChannels;
  private final boolean aligned;
  private final Actions actions;
  private final BitSet closed = new BitSet();
  private final BitSet received = new BitSet();
  private State state = State.IDLE;
  private long currentCheckpoint = -1;
  private CheckpointBarrier currentBarrier;

  /** The highest checkpoint id this task has triggered or aborted; older barriers are stale. */
  private long latestHandled = -1;

  public BarrierHandler(int numberOfChannels, boolean exactlyOnce, Actions actions) {
    if (numberOfChannels < 1) {
      throw new IllegalArgumentException("A barrier handler needs at least one channel");
    }
    this.numberOfChannels = numberOfChannels;
    this.aligned = exactlyOnce;
    this.actions = actions;
  }

  public State state() {
    return state;
  }

  /** The checkpoint being aligned or collected, or -1. */
  public long currentCheckpointId() {
    return state == State.IDLE ? -1 : currentCheckpoint;
  }

  public void onBarrier(int channel, CheckpointBarrier barrier) throws Exception {
    long id = barrier.checkpointId();
    if (id <= latestHandled || (state != State.IDLE && id < currentCheckpoint)) {
      return; // stale: that checkpoint was already taken or aborted here
    }
    if (state != State.IDLE && id > currentCheckpoint) {
      // A newer checkpoint overtook the one in progress: the old one cannot complete.
      long old = currentCheckpoint;
      reset();
      latestHandled = old;
      actions.abortCheckpoint(old, "checkpoint " + id + " started before " + old + " aligned");
    }
    if (state == State.IDLE) {
      state = aligned ? State.ALIGNING : State.COLLECTING;
      currentCheckpoint = id;
      currentBarrier = barrier;
    }
    received.set(channel);
    if (aligned) {
      actions.block(channel);
    }
    completeIfAllArrived();
  }

  public void onCancel(int channel, CancelCheckpointMarker marker) throws Exception {
    long id = marker.checkpointId();
    if (id <= latestHandled) {
      return;
    }
    if (state != State.IDLE && id < currentCheckpoint) {
      return;
    }
    reset();
    latestHandled = id;
    actions.abortCheckpoint(id, "cancelled upstream");
  }

  /** The channel delivered its last event: it will send no more barriers. */
  public void onChannelClosed(int channel) throws Exception {
    closed.set(channel);
    if (state != State.IDLE) {
      completeIfAllArrived();
    }
  }

  /** The task aborts the checkpoint in progress (for example on a coordinator abort). */
  public void abort(long checkpointId) {
    if (state != State.IDLE && currentCheckpoint == checkpointId) {
      reset();
    }
    latestHandled = Math.max(latestHandled, checkpointId);
  }

  private void completeIfAllArrived() throws Exception {
    BitSet missing = new BitSet(numberOfChannels);
    missing.set(0, numberOfChannels);
    missing.andNot(closed);
    missing.andNot(received);
    if (missing.isEmpty()) {
      CheckpointBarrier barrier = currentBarrier;
      reset();
      latestHandled = barrier.checkpointId();
      actions.triggerCheckpoint(barrier);
    }
  }

  private void reset() {
    if (aligned && !received.isEmpty()) {
      actions.unblockAll();
    }
    received.clear();
    state = State.IDLE;
    currentBarrier = null;
  }
}
