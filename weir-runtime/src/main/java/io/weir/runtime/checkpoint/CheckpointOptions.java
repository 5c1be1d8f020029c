package io.weir.runtime.checkpoint;

import io.weir.runtime.network.ChannelEvent;
import java.util.Objects;

/**
 * What kind of snapshot the coordinator asked for and how its barriers align: decided once, when
 * the coordinator triggers, and carried through the task executor's trigger to the sources and in
 * their barriers to every other task (as Flink's {@code CheckpointOptions}).
 *
 * @param type checkpoint or one of the savepoint kinds
 * @param alignment how the barriers of an exactly-once snapshot align; always {@link
 *     BarrierHandler.Alignment#ALIGNED} for a savepoint
 * @param targetLocation where the tasks write the snapshot's state: null for the job's checkpoint
 *     storage, or the URI of a savepoint's own directory, which the coordinator chose when it
 *     triggered the savepoint (Flink's {@code CheckpointStorageLocationReference})
 */
public record CheckpointOptions(
    Type type, BarrierHandler.Alignment alignment, String targetLocation) {

  /** The kinds of snapshot. */
  public enum Type {
    /**
     * A checkpoint of the kind the job is configured with, owned by Weir and deleted when subsumed:
     * an incremental one refers to the files earlier checkpoints uploaded.
     */
    CHECKPOINT,
    /**
     * A checkpoint that refers to no file an earlier checkpoint uploaded: an incremental backend
     * uploads its whole state, and later checkpoints may build on it (Flink's {@code
     * FULL_CHECKPOINT}, sharing files only forward). Owned, subsumed and restored as any other.
     */
    FULL_CHECKPOINT,
    /** A savepoint: the job goes on. */
    SAVEPOINT,
    /** A savepoint after which the job stops (stop-with-savepoint without drain). */
    SAVEPOINT_SUSPEND,
    /**
     * A savepoint after which the job stops, taken after the sources ended their input and emitted
     * the final watermark (stop-with-savepoint with drain).
     */
    SAVEPOINT_TERMINATE;

    /** True for every savepoint kind. */
    public boolean isSavepoint() {
      return this != CHECKPOINT && this != FULL_CHECKPOINT;
    }
  }

  public CheckpointOptions {
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(alignment, "alignment");
    if (type.isSavepoint() && alignment != BarrierHandler.Alignment.ALIGNED) {
      throw new IllegalArgumentException("A savepoint is always aligned, not " + alignment);
    }
    if (!type.isSavepoint() && targetLocation != null) {
      throw new IllegalArgumentException(
          "A checkpoint is written to the job's checkpoint storage, not to " + targetLocation);
    }
  }

  /** Options whose state goes to the job's checkpoint storage. */
  public CheckpointOptions(Type type, BarrierHandler.Alignment alignment) {
    this(type, alignment, null);
  }

  /** A periodic checkpoint whose barriers align as configured. */
  public static CheckpointOptions checkpoint(BarrierHandler.Alignment alignment) {
    return new CheckpointOptions(Type.CHECKPOINT, alignment);
  }

  /**
   * A checkpoint, triggered by hand, that refers to no file of an earlier checkpoint; its barriers
   * align as configured.
   */
  public static CheckpointOptions fullCheckpoint(BarrierHandler.Alignment alignment) {
    return new CheckpointOptions(Type.FULL_CHECKPOINT, alignment);
  }

  /** A savepoint of kind {@code type}: aligned; its state goes to the job's storage. */
  public static CheckpointOptions savepoint(Type type) {
    return savepoint(type, null);
  }

  /**
   * A savepoint of kind {@code type}: aligned; the tasks write its state into {@code
   * targetLocation}, the savepoint's own directory (null: the job's checkpoint storage).
   */
  public static CheckpointOptions savepoint(Type type, String targetLocation) {
    if (!type.isSavepoint()) {
      throw new IllegalArgumentException("Not a savepoint type: " + type);
    }
    return new CheckpointOptions(type, BarrierHandler.Alignment.ALIGNED, targetLocation);
  }

  /** True for every savepoint kind. */
  public boolean isSavepoint() {
    return type.isSavepoint();
  }

  /**
   * True when the snapshot may refer to files earlier checkpoints uploaded (Flink's sharing
   * strategy {@code FORWARD_BACKWARD}): only a checkpoint of the configured kind. A full checkpoint
   * shares its files only with later checkpoints, a savepoint with none.
   */
  public boolean mayReuseEarlierFiles() {
    return type == Type.CHECKPOINT;
  }

  /** True when the job stops once this savepoint completed (Flink's synchronous savepoint). */
  public boolean isSynchronous() {
    return type == Type.SAVEPOINT_SUSPEND || type == Type.SAVEPOINT_TERMINATE;
  }

  /** True when sources end their input before the savepoint (stop with {@code --drain}). */
  public boolean drain() {
    return type == Type.SAVEPOINT_TERMINATE;
  }

  /**
   * The barrier a source emits for these options; {@code exactlyOnce} false (at-least-once) never
   * overtakes.
   */
  public ChannelEvent.CheckpointBarrier toBarrier(
      long checkpointId, long timestamp, boolean exactlyOnce) {
    boolean unaligned =
        exactlyOnce && !isSavepoint() && alignment == BarrierHandler.Alignment.UNALIGNED;
    return new ChannelEvent.CheckpointBarrier(
        checkpointId,
        timestamp,
        isSavepoint(),
        unaligned,
        targetLocation,
        type == Type.FULL_CHECKPOINT);
  }

  /**
   * The options as a task that receives {@code barrier} sees them: the barrier says savepoint, full
   * checkpoint or checkpoint and where its state goes; a savepoint's kind matters only at the
   * sources, which received the trigger.
   */
  public static CheckpointOptions of(
      ChannelEvent.CheckpointBarrier barrier, BarrierHandler.Alignment configured) {
    if (barrier.savepoint()) {
      return savepoint(Type.SAVEPOINT, barrier.targetLocation());
    }
    return barrier.fullCheckpoint() ? fullCheckpoint(configured) : checkpoint(configured);
  }
}
