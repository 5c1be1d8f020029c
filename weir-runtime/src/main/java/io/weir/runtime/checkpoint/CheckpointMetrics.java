package io.weir.runtime.checkpoint;

/**
 * What one subtask measured while taking its part of a checkpoint, on the task thread.
 *
 * @param startDelayMillis from the coordinator's trigger to the first barrier at this subtask
 * @param alignmentMillis from the first to the last barrier (0 for unaligned barriers)
 * @param syncMillis the synchronous part of the snapshot
 * @param unaligned true when the subtask took it unaligned, or converted it at its outputs
 * @param endOfInput true when the subtask's input had ended when it took the snapshot
 * @param lastBarrierFrom the producer of the channel whose barrier arrived last, ending the
 *     alignment (e.g. {@code "Source (1/2)"}); null for a source or an unaligned barrier
 */
public record CheckpointMetrics(
    long startDelayMillis,
    long alignmentMillis,
    long syncMillis,
    boolean unaligned,
    boolean endOfInput,
    String lastBarrierFrom) {

  /** Nothing measured: for a snapshot whose measurements were lost. */
  public static final CheckpointMetrics NONE = new CheckpointMetrics(0, 0, 0, false, false, null);

  /** The same, taken unaligned after all (the aligned timeout converted its output barriers). */
  public CheckpointMetrics asUnaligned() {
    return new CheckpointMetrics(
        startDelayMillis, alignmentMillis, syncMillis, true, endOfInput, lastBarrierFrom);
  }
}
