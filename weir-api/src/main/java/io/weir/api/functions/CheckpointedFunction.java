package io.weir.api.functions;

import io.weir.api.state.FunctionInitializationContext;
import io.weir.api.state.FunctionSnapshotContext;

/**
 * A function with state of its own (operator state) or that must act when a checkpoint is taken.
 * {@link #initializeState} runs before {@code open}, with the restored state if there is one;
 * {@link #snapshotState} runs on the task thread when the checkpoint barrier passes.
 */
public interface CheckpointedFunction {

  void snapshotState(FunctionSnapshotContext context) throws Exception;

  void initializeState(FunctionInitializationContext context) throws Exception;
}
