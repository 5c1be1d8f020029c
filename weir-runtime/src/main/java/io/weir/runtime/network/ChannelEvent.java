package io.weir.runtime.network;

/**
 * Events travel in-band with the buffers of a channel, in order. {@link #isPriority()} events may
 * overtake buffers queued before them.
 */
public sealed interface ChannelEvent
    permits ChannelEvent.EndOfPartition,
        ChannelEvent.EndOfData,
        ChannelEvent.CheckpointBarrier,
        ChannelEvent.CancelCheckpointMarker,
        ChannelEvent.Watermark,
        ChannelEvent.WatermarkStatus {

  /** True for events that jump to the head of the queue. */
  default boolean isPriority() {
    return false;
  }

  /** The producer has sent everything; nothing follows on this channel. */
  record EndOfPartition() implements ChannelEvent {
    public static final EndOfPartition INSTANCE = new EndOfPartition();
  }

  /**
   * The producer has emitted its last record; it may still take part in checkpoints (the final
   * checkpoint of a bounded job) before it sends {@link EndOfPartition}.
   */
  record EndOfData() implements ChannelEvent {
    public static final EndOfData INSTANCE = new EndOfData();
  }

  /**
   * Marks the point in the stream at which checkpoint {@code checkpointId} was taken upstream:
   * everything before it belongs to the checkpoint, everything after to the next.
   *
   * @param checkpointId the checkpoint
   * @param timestamp when the coordinator triggered it, epoch millis
   * @param savepoint true for a savepoint (always aligned)
   * @param unaligned true when the barrier overtakes in-flight data (unaligned checkpoint)
   * @param targetLocation where every task writes the snapshot's state: null for the job's
   *     checkpoint storage, or a savepoint's own directory
   * @param fullCheckpoint true for a checkpoint that refers to no file of an earlier checkpoint
   *     (Flink's {@code FULL_CHECKPOINT}); never a savepoint
   */
  record CheckpointBarrier(
      long checkpointId,
      long timestamp,
      boolean savepoint,
      boolean unaligned,
      String targetLocation,
      boolean fullCheckpoint)
      implements ChannelEvent {

    public CheckpointBarrier {
      if (savepoint && fullCheckpoint) {
        throw new IllegalArgumentException(
            "Barrier " + checkpointId + " is a savepoint's: it cannot be a full checkpoint's too");
      }
    }

    /** A barrier of a savepoint or of a checkpoint of the configured kind. */
    public CheckpointBarrier(
        long checkpointId,
        long timestamp,
        boolean savepoint,
        boolean unaligned,
        String targetLocation) {
      this(checkpointId, timestamp, savepoint, unaligned, targetLocation, false);
    }

    /** An aligned barrier whose state goes to the job's checkpoint storage. */
    public CheckpointBarrier(long checkpointId, long timestamp, boolean savepoint) {
      this(checkpointId, timestamp, savepoint, false);
    }

    /** A barrier whose state goes to the job's checkpoint storage. */
    public CheckpointBarrier(
        long checkpointId, long timestamp, boolean savepoint, boolean unaligned) {
      this(checkpointId, timestamp, savepoint, unaligned, null);
    }

    /** The same barrier, overtaking in-flight data. */
    public CheckpointBarrier asUnaligned() {
      return unaligned ? this : withUnaligned(true);
    }

    /** The same barrier, overtaking in-flight data or not. */
    public CheckpointBarrier withUnaligned(boolean overtakes) {
      return new CheckpointBarrier(
          checkpointId, timestamp, savepoint, overtakes, targetLocation, fullCheckpoint);
    }

    /** Unaligned barriers jump ahead of the buffers queued in a channel. */
    @Override
    public boolean isPriority() {
      return unaligned;
    }
  }

  /**
   * Checkpoint {@code checkpointId} was aborted upstream: release any alignment for it.
   *
   * @param checkpointId the checkpoint
   */
  record CancelCheckpointMarker(long checkpointId) implements ChannelEvent {}

  /**
   * Event time on this channel reached {@code timestamp}: no record at or below it should follow.
   * In order with the records, like an aligned barrier; not part of checkpoints (sources re-emit
   * their watermarks after a restore).
   *
   * @param timestamp epoch millis
   */
  record Watermark(long timestamp) implements ChannelEvent {}

  /**
   * The producer became idle (no records, its watermark must not hold back the consumer) or active
   * again.
   *
   * @param idle true for idle
   */
  record WatermarkStatus(boolean idle) implements ChannelEvent {
    public static final WatermarkStatus IDLE = new WatermarkStatus(true);
    public static final WatermarkStatus ACTIVE = new WatermarkStatus(false);
  }
}
