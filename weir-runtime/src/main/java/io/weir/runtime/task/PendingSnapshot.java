package io.weir.runtime.task;

import io.weir.runtime.checkpoint.InFlightData;
import io.weir.runtime.checkpoint.OperatorSnapshot;
import io.weir.runtime.checkpoint.ResultSubpartitionInfo;
import io.weir.runtime.network.ChannelStateEntry;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ScheduledFuture;

/**
 * A snapshot taken at a barrier whose upload waits for the in-flight data of its checkpoint: on the
 * input side until every input channel delivered its barrier (unaligned checkpoints); on the output
 * side until every output channel either delivered its aligned barrier or had it converted into an
 * overtaking one by the aligned checkpoint timeout, which adds the buffers it overtook.
 *
 * <p>Task thread only.
 */
final class PendingSnapshot {

  private final long checkpointId;
  private final List<OperatorSnapshot> snapshots;
  private final String targetLocation;
  private InFlightData inFlight = InFlightData.NONE;
  private boolean awaitingInput;

  /** Per writer, the channels whose barrier was neither taken by the consumer nor converted. */
  private final List<BitSet> awaitingOutput = new ArrayList<>();

  private ScheduledFuture<?> alignedTimeout;

  PendingSnapshot(long checkpointId, List<OperatorSnapshot> snapshots, String targetLocation) {
    this.checkpointId = checkpointId;
    this.snapshots = snapshots;
    this.targetLocation = targetLocation;
  }

  long checkpointId() {
    return checkpointId;
  }

  /** Where the snapshot is written: null for the job's storage, or a savepoint's directory. */
  String targetLocation() {
    return targetLocation;
  }

  /** Wait for the recorded data of the input channels. */
  void awaitInput() {
    awaitingInput = true;
  }

  /** The input channels' data is complete. */
  void inputComplete(InFlightData recorded) {
    inFlight = inFlight.with(recorded);
    awaitingInput = false;
  }

  /** Wait until each of writer {@code writer}'s {@code channels} delivered or converted. */
  void awaitOutput(int writer, int channels) {
    while (awaitingOutput.size() <= writer) {
      awaitingOutput.add(new BitSet());
    }
    awaitingOutput.get(writer).set(0, channels);
  }

  /** Writer {@code writer}'s channels still waiting. */
  BitSet awaitingOutput(int writer) {
    return writer < awaitingOutput.size()
        ? (BitSet) awaitingOutput.get(writer).clone()
        : new BitSet();
  }

  boolean isAwaitingOutput() {
    for (BitSet channels : awaitingOutput) {
      if (!channels.isEmpty()) {
        return true;
      }
    }
    return false;
  }

  /** The consumer of that channel took the aligned barrier in order. */
  void outputDelivered(int writer, int channel) {
    if (writer < awaitingOutput.size()) {
      awaitingOutput.get(writer).clear(channel);
    }
  }

  /** The barrier of that channel was converted; {@code overtaken} is its in-flight data. */
  void outputConverted(
      int writer,
      int channel,
      ResultSubpartitionInfo subpartition,
      List<ChannelStateEntry> overtaken) {
    if (writer < awaitingOutput.size()) {
      awaitingOutput.get(writer).clear(channel);
    }
    if (!overtaken.isEmpty()) {
      inFlight = inFlight.with(new InFlightData(Map.of(), Map.of(subpartition, overtaken)));
    }
  }

  /** Adds in-flight data overtaken by an unaligned barrier at the snapshot itself. */
  void addChannelState(InFlightData overtaken) {
    inFlight = inFlight.with(overtaken);
  }

  void setAlignedTimeout(ScheduledFuture<?> timer) {
    this.alignedTimeout = timer;
  }

  boolean isComplete() {
    return !awaitingInput && !isAwaitingOutput();
  }

  /** The snapshots with the in-flight data added to the head operator's; once complete. */
  List<OperatorSnapshot> snapshotsWithChannelState() {
    cancelTimer();
    addChannelState(snapshots, inFlight);
    return snapshots;
  }

  /** Gives the checkpoint up: frees the frozen state and stops the timer. */
  void release() {
    cancelTimer();
    releaseAll(snapshots);
  }

  /**
   * Adds in-flight data to the head operator's snapshot (the first one), which carries the task's
   * own state.
   */
  private static void addChannelState(List<OperatorSnapshot> snapshots, InFlightData data) {
    if (data.isEmpty() || snapshots.isEmpty()) {
      return;
    }
    snapshots.set(0, snapshots.get(0).withInFlight(data));
  }

  /** Frees the keyed state that {@code snapshots} froze. */
  static void releaseAll(List<OperatorSnapshot> snapshots) {
    for (OperatorSnapshot s : snapshots) {
      if (s.keyed() != null) {
        s.keyed().release();
      }
    }
  }

  private void cancelTimer() {
    if (alignedTimeout != null) {
      alignedTimeout.cancel(false);
      alignedTimeout = null;
    }
  }
}
