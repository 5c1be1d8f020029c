package io.weir.runtime.checkpoint;

import io.weir.runtime.network.ChannelEvent.CancelCheckpointMarker;
import io.weir.runtime.network.ChannelEvent.CheckpointBarrier;
import java.util.BitSet;
import java.util.TreeMap;

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

    /** Aligned with timeout: alignment of {@code checkpointId} began; call back on timeout. */
    default void alignmentStarted(long checkpointId) {}

    /**
     * Unaligned: from now on, the data of {@code channel} up to its barrier is in-flight data of
     * the checkpoint (including what its deserializer holds already).
     */
    default void startRecording(int channel) {}

    /**
     * Unaligned: {@code channel} delivered its barrier already; keep the bytes its deserializer
     * holds (a record whose rest the barrier overtook).
     */
    default void recordUnconsumed(int channel) {}

    /** Unaligned: the barrier of {@code channel} arrived; stop recording it. */
    default void stopRecording(int channel) {}

    /** Unaligned: every channel delivered its barrier; the in-flight data is complete. */
    default void channelStateComplete(long checkpointId) throws Exception {}
  }

  /** How a task aligns exactly-once checkpoints. */
  public enum Alignment {
    /** Block channels until all barriers arrived. */
    ALIGNED,
    /** Snapshot at the first barrier and record in-flight data until the last. */
    UNALIGNED,
    /** Start aligned; switch to unaligned when alignment takes longer than the timeout. */
    ALIGNED_THEN_UNALIGNED
  }

  /** Where the handler is. */
  public enum State {
    /** No checkpoint in progress at this task. */
    IDLE,
    /** Exactly-once: waiting for barrier n on the channels that did not deliver it yet. */
    ALIGNING,
    /** At-least-once: counting the channels that delivered barrier n, blocking none. */
    COLLECTING,
    /** Unaligned: snapshot taken; recording the channels whose barrier n has not arrived. */
    UNALIGNED
  }

  private final int numberOfChannels;
  private final boolean aligned;
  private final Actions actions;
  private final BitSet closed = new BitSet();
  // Aligned mode: the one checkpoint being aligned.
  private final BitSet received = new BitSet();
  private State state = State.IDLE;
  private long currentCheckpoint = -1;
  private CheckpointBarrier currentBarrier;
  // At-least-once mode: every checkpoint whose barriers are still arriving, oldest first.
  private final TreeMap<Long, Collecting> collecting = new TreeMap<>();

  /** The highest checkpoint id this task has triggered or aborted; older barriers are stale. */
  private long latestHandled = -1;

  /** At-least-once: the channels that delivered one checkpoint's barrier. */
  private static final class Collecting {
    final CheckpointBarrier barrier;
    final BitSet received = new BitSet();
    boolean aborted;

    Collecting(CheckpointBarrier barrier) {
      this.barrier = barrier;
    }
  }

  private final Alignment alignment;

  public BarrierHandler(int numberOfChannels, boolean exactlyOnce, Actions actions) {
    this(numberOfChannels, exactlyOnce, Alignment.ALIGNED, actions);
  }

  public BarrierHandler(
      int numberOfChannels, boolean exactlyOnce, Alignment alignment, Actions actions) {
    if (numberOfChannels < 1) {
      throw new IllegalArgumentException("A barrier handler needs at least one channel");
    }
    this.numberOfChannels = numberOfChannels;
    this.aligned = exactlyOnce;
    this.alignment = alignment;
    this.actions = actions;
  }

  public State state() {
    if (!aligned) {
      return collecting.values().stream().anyMatch(c -> !c.aborted) ? State.COLLECTING : State.IDLE;
    }
    return state;
  }

  /** The checkpoint being aligned or (the oldest) collected, or -1. */
  public long currentCheckpointId() {
    if (!aligned) {
      return collecting.entrySet().stream()
          .filter(e -> !e.getValue().aborted)
          .map(java.util.Map.Entry::getKey)
          .findFirst()
          .orElse(-1L);
    }
    return state == State.IDLE ? -1 : currentCheckpoint;
  }

  public void onBarrier(int channel, CheckpointBarrier barrier) throws Exception {
    long id = barrier.checkpointId();
    if (id <= latestHandled) {
      return; // stale: that checkpoint was already taken or aborted here
    }
    if (!aligned) {
      Collecting c = collecting.computeIfAbsent(id, k -> new Collecting(barrier));
      c.received.set(channel);
      completeCollected();
      return;
    }
    if (state == State.UNALIGNED) {
      if (id == currentCheckpoint) {
        received.set(channel);
        actions.stopRecording(channel);
        completeUnaligned();
        return;
      }
      if (id < currentCheckpoint) {
        return;
      }
      long old = currentCheckpoint;
      stopRecordingAll();
      latestHandled = Math.max(latestHandled, old);
      actions.abortCheckpoint(old, "checkpoint " + id + " started before " + old + " completed");
    }
    if (state != State.IDLE && id < currentCheckpoint) {
      return;
    }
    if (state != State.IDLE && id > currentCheckpoint) {
      // A newer checkpoint overtook the one being aligned: the old one cannot complete here.
      long old = currentCheckpoint;
      releaseAlignment();
      latestHandled = Math.max(latestHandled, old);
      actions.abortCheckpoint(old, "checkpoint " + id + " started before " + old + " aligned");
    }
    boolean goUnaligned =
        !barrier.savepoint() && (barrier.unaligned() || alignment == Alignment.UNALIGNED);
    if (goUnaligned) {
      if (state == State.IDLE) {
        currentCheckpoint = id;
        currentBarrier = barrier;
      }
      received.set(channel);
      switchToUnaligned();
      return;
    }
    if (state == State.IDLE) {
      state = State.ALIGNING;
      currentCheckpoint = id;
      currentBarrier = barrier;
      if (alignment == Alignment.ALIGNED_THEN_UNALIGNED && !barrier.savepoint()) {
        actions.alignmentStarted(id); // savepoints stay aligned: no timeout
      }
    }
    received.set(channel);
    actions.block(channel);
    completeAligned();
  }

  /**
   * Aligned with timeout: alignment of {@code checkpointId} has lasted too long. If it is still
   * going on (and is not a savepoint's, which always stays aligned), the task snapshots now and
   * records the data still in flight.
   */
  public void onAlignmentTimeout(long checkpointId) throws Exception {
    if (state == State.ALIGNING
        && currentCheckpoint == checkpointId
        && !currentBarrier.savepoint()) {
      switchToUnaligned();
    }
  }

  /** Snapshot now (barrier forwarded overtaking), record channels whose barrier is missing. */
  private void switchToUnaligned() throws Exception {
    if (state == State.ALIGNING) {
      actions.unblockAll();
    }
    state = State.UNALIGNED;
    actions.triggerCheckpoint(currentBarrier.asUnaligned());
    for (int c = 0; c < numberOfChannels; c++) {
      if (closed.get(c)) {
        continue;
      }
      if (received.get(c)) {
        actions.recordUnconsumed(c);
      } else {
        actions.startRecording(c);
      }
    }
    completeUnaligned();
  }

  private void completeUnaligned() throws Exception {
    if (allArrived(received)) {
      long id = currentCheckpoint;
      latestHandled = Math.max(latestHandled, id);
      received.clear();
      state = State.IDLE;
      currentBarrier = null;
      actions.channelStateComplete(id);
    }
  }

  private void stopRecordingAll() {
    for (int c = 0; c < numberOfChannels; c++) {
      if (!closed.get(c) && !received.get(c)) {
        actions.stopRecording(c);
      }
    }
    received.clear();
    state = State.IDLE;
    currentBarrier = null;
  }

  public void onCancel(int channel, CancelCheckpointMarker marker) throws Exception {
    long id = marker.checkpointId();
    if (id <= latestHandled) {
      return;
    }
    if (!aligned) {
      Collecting c = collecting.get(id);
      if (c == null) {
        c = new Collecting(null);
        collecting.put(id, c);
      }
      if (!c.aborted) {
        c.aborted = true;
        actions.abortCheckpoint(id, "cancelled upstream");
      }
      return;
    }
    if (state != State.IDLE && id < currentCheckpoint) {
      return;
    }
    if (state == State.UNALIGNED) {
      stopRecordingAll();
    } else {
      releaseAlignment();
    }
    latestHandled = Math.max(latestHandled, id);
    actions.abortCheckpoint(id, "cancelled upstream");
  }

  /** The channel delivered its last event: it will send no more barriers. */
  public void onChannelClosed(int channel) throws Exception {
    closed.set(channel);
    if (!aligned) {
      completeCollected();
    } else if (state == State.UNALIGNED) {
      actions.stopRecording(channel);
      completeUnaligned();
    } else if (state != State.IDLE) {
      completeAligned();
    }
  }

  /**
   * The task aborts checkpoint {@code checkpointId} (a coordinator abort). An alignment of that or
   * an older checkpoint is released, since barriers up to this id are now stale here.
   */
  public void abort(long checkpointId) throws Exception {
    if (!aligned) {
      Collecting c = collecting.get(checkpointId);
      if (c != null) {
        c.aborted = true;
      } else if (checkpointId > latestHandled) {
        Collecting marker = new Collecting(null);
        marker.aborted = true;
        collecting.put(checkpointId, marker);
      }
      return;
    }
    if (state == State.UNALIGNED && currentCheckpoint <= checkpointId) {
      stopRecordingAll();
    } else if (state != State.IDLE && currentCheckpoint <= checkpointId) {
      long old = currentCheckpoint;
      releaseAlignment();
      if (old < checkpointId) {
        actions.abortCheckpoint(old, "checkpoint " + checkpointId + " was aborted");
      }
    }
    latestHandled = Math.max(latestHandled, checkpointId);
  }

  private boolean allArrived(BitSet arrived) {
    BitSet missing = new BitSet(numberOfChannels);
    missing.set(0, numberOfChannels);
    missing.andNot(closed);
    missing.andNot(arrived);
    return missing.isEmpty();
  }

  private void completeAligned() throws Exception {
    if (allArrived(received)) {
      CheckpointBarrier barrier = currentBarrier;
      releaseAlignment();
      latestHandled = Math.max(latestHandled, barrier.checkpointId());
      actions.triggerCheckpoint(barrier);
    }
  }

  /** At-least-once: takes the newest checkpoint whose barriers all arrived; older ones die. */
  private void completeCollected() throws Exception {
    Long complete = null;
    for (java.util.Map.Entry<Long, Collecting> e : collecting.descendingMap().entrySet()) {
      if (!e.getValue().aborted
          && e.getValue().barrier != null
          && allArrived(e.getValue().received)) {
        complete = e.getKey();
        break;
      }
    }
    if (complete == null) {
      return;
    }
    CheckpointBarrier barrier = collecting.get(complete).barrier;
    java.util.Map<Long, Collecting> older = collecting.headMap(complete, true);
    for (java.util.Map.Entry<Long, Collecting> e : older.entrySet()) {
      if (e.getKey() < complete && !e.getValue().aborted) {
        actions.abortCheckpoint(e.getKey(), "subsumed by checkpoint " + complete);
      }
    }
    older.clear();
    latestHandled = Math.max(latestHandled, complete);
    actions.triggerCheckpoint(barrier);
  }

  private void releaseAlignment() {
    if (!received.isEmpty()) {
      actions.unblockAll();
    }
    received.clear();
    state = State.IDLE;
    currentBarrier = null;
  }
}
