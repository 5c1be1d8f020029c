package io.weir.runtime.operators;

import io.weir.runtime.checkpoint.BarrierHandler;
import io.weir.runtime.checkpoint.CheckpointOptions;
import io.weir.runtime.checkpoint.OperatorSnapshot;
import io.weir.runtime.state.KeyedStateBackend;

/**
 * An operator of a task's chain, driven by the task thread: {@link #setup}, then {@link #open}
 * (inputs may arrive), then {@link #finish} at the end of input (flush what is buffered), and
 * {@link #close} always, also after a failure.
 */
public abstract class StreamOperator<OUT> {

  protected OperatorContext context;
  protected Output<OUT> output;

  public void setup(OperatorContext context, Output<OUT> output) {
    this.context = context;
    this.output = output;
  }

  public String getName() {
    return context.operatorName();
  }

  public OperatorContext getContext() {
    return context;
  }

  /** Restores or initializes state; runs before {@link #open}. */
  public void initializeState() throws Exception {}

  public void open() throws Exception {}

  /**
   * Event time of this operator's input reached {@code watermark} (the minimum over its active
   * input channels). Operators with event-time timers fire them first; every operator forwards the
   * watermark. Task thread, between records.
   */
  public void processWatermark(long watermark) throws Exception {
    output.emitWatermark(watermark);
  }

  /** Every input of this operator became idle (true) or one is active again (false). */
  public void processWatermarkStatus(boolean idle) throws Exception {
    output.emitWatermarkStatus(idle);
  }

  /** All input has been processed; emit what is still buffered. */
  public void finish() throws Exception {}

  public void close() throws Exception {}

  /**
   * The synchronous part of a checkpoint, on the task thread when the barrier passes: the user's
   * own snapshot hook, then operator state serialized and keyed state frozen (copy-on-write).
   */
  public OperatorSnapshot snapshotState(long checkpointId, long timestamp) throws Exception {
    return snapshotState(
        checkpointId, timestamp, CheckpointOptions.checkpoint(BarrierHandler.Alignment.ALIGNED));
  }

  /**
   * As {@link #snapshotState(long, long)}, for a checkpoint or savepoint as {@code options} say: a
   * savepoint's keyed state is written in full, in the canonical key-group format.
   */
  public OperatorSnapshot snapshotState(
      long checkpointId, long timestamp, CheckpointOptions options) throws Exception {
    snapshotUserState(checkpointId, timestamp);
    KeyedStateBackend<?> backend = context.keyedStateBackend();
    return new OperatorSnapshot(
        context.operatorId(),
        context.operatorName(),
        backend == null ? null : backend.snapshot(checkpointId, options),
        context.operatorStateStore().snapshot());
  }

  /** Lets the user code act before the state is captured. */
  protected void snapshotUserState(long checkpointId, long timestamp) throws Exception {}

  /** Checkpoint {@code checkpointId} completed everywhere. */
  public void notifyCheckpointComplete(long checkpointId) throws Exception {}

  /**
   * True for a sink that commits what it wrote when a checkpoint completes (a two-phase-commit
   * sink): the flight recorder times its {@link #notifyCheckpointComplete} as the checkpoint's
   * commit segment.
   */
  public boolean commitsOnCheckpointComplete() {
    return false;
  }

  /** Checkpoint {@code checkpointId} will not complete. */
  public void notifyCheckpointAborted(long checkpointId) throws Exception {}
}
