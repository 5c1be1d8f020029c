package io.weir.runtime.checkpoint;

import io.weir.runtime.network.ChannelEvent.CheckpointBarrier;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Consumer;

/**
 * A task as {@link BarrierHandler} sees it: models the input gate (which channels are blocked) and
 * records every call, so tests can assert on what the handler asked for and in which order.
 */
final class RecordingBarrierActions implements BarrierHandler.Actions {

  /** Channels the gate must not read now. */
  final Set<Integer> blocked = new TreeSet<>();

  /**
   * Every call, in order: "block 1", "unblockAll", "trigger 3", "abort 3"; with unaligned
   * checkpoints also "timer 3", "record 1", "keep 0", "stop 1", "complete 3".
   */
  final List<String> log = new ArrayList<>();

  final List<Long> triggered = new ArrayList<>();
  final List<Long> aborted = new ArrayList<>();
  boolean everBlocked;

  /** Runs when the handler asks for a snapshot, before it is recorded as triggered. */
  Consumer<CheckpointBarrier> onTrigger = barrier -> {};

  @Override
  public void block(int channel) {
    blocked.add(channel);
    everBlocked = true;
    log.add("block " + channel);
  }

  @Override
  public void unblockAll() {
    blocked.clear();
    log.add("unblockAll");
  }

  @Override
  public void triggerCheckpoint(CheckpointBarrier barrier) {
    onTrigger.accept(barrier);
    triggered.add(barrier.checkpointId());
    log.add("trigger " + barrier.checkpointId());
  }

  @Override
  public void abortCheckpoint(long checkpointId, String reason) {
    aborted.add(checkpointId);
    log.add("abort " + checkpointId);
  }

  @Override
  public void alignmentStarted(long checkpointId) {
    log.add("timer " + checkpointId);
  }

  @Override
  public void startRecording(int channel) {
    log.add("record " + channel);
  }

  @Override
  public void recordUnconsumed(int channel) {
    log.add("keep " + channel);
  }

  @Override
  public void stopRecording(int channel) {
    log.add("stop " + channel);
  }

  @Override
  public void channelStateComplete(long checkpointId) {
    log.add("complete " + checkpointId);
  }
}
