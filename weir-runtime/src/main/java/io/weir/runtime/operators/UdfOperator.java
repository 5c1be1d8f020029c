package io.weir.runtime.operators;

import io.weir.api.functions.CheckpointListener;
import io.weir.api.functions.CheckpointedFunction;
import io.weir.api.functions.OpenContext;
import io.weir.api.functions.RichFunction;
import io.weir.api.state.FunctionInitializationContext;
import io.weir.api.state.FunctionSnapshotContext;
import io.weir.api.state.KeyedStateStore;
import io.weir.api.state.OperatorStateStore;
import java.util.Optional;

/**
 * An operator that runs a user object: gives a rich function its runtime context, calls {@code
 * initializeState}, {@code open} and {@code close} at the right moments.
 */
public abstract class UdfOperator<OUT, F> extends StreamOperator<OUT> {

  private static final OpenContext OPEN_CONTEXT = new OpenContext() {};

  protected final F userFunction;

  protected UdfOperator(F userFunction) {
    this.userFunction = userFunction;
  }

  @Override
  public void setup(OperatorContext context, Output<OUT> output) {
    super.setup(context, output);
    if (userFunction instanceof RichFunction rich) {
      rich.setRuntimeContext(new StreamingRuntimeContext(context));
    }
  }

  @Override
  public void initializeState() throws Exception {
    if (userFunction instanceof CheckpointedFunction checkpointed) {
      checkpointed.initializeState(new InitializationContext(context));
    }
  }

  @Override
  protected void snapshotUserState(long checkpointId, long timestamp) throws Exception {
    if (userFunction instanceof CheckpointedFunction checkpointed) {
      checkpointed.snapshotState(
          new FunctionSnapshotContext() {
            @Override
            public long getCheckpointId() {
              return checkpointId;
            }

            @Override
            public long getCheckpointTimestamp() {
              return timestamp;
            }
          });
    }
  }

  @Override
  public void notifyCheckpointComplete(long checkpointId) throws Exception {
    if (userFunction instanceof CheckpointListener listener) {
      listener.notifyCheckpointComplete(checkpointId);
    }
  }

  @Override
  public void notifyCheckpointAborted(long checkpointId) throws Exception {
    if (userFunction instanceof CheckpointListener listener) {
      listener.notifyCheckpointAborted(checkpointId);
    }
  }

  @Override
  public void open() throws Exception {
    if (userFunction instanceof RichFunction rich) {
      rich.open(OPEN_CONTEXT);
    }
  }

  @Override
  public void close() throws Exception {
    if (userFunction instanceof RichFunction rich) {
      rich.close();
    }
  }

  /** What {@code CheckpointedFunction.initializeState} sees. */
  static final class InitializationContext implements FunctionInitializationContext {
    private final OperatorContext context;

    InitializationContext(OperatorContext context) {
      this.context = context;
    }

    @Override
    public boolean isRestored() {
      return context.isRestored();
    }

    @Override
    public Optional<Long> getRestoredCheckpointId() {
      return context.isRestored() ? Optional.of(context.restoredCheckpointId()) : Optional.empty();
    }

    @Override
    public OperatorStateStore getOperatorStateStore() {
      return context.operatorStateStore();
    }

    @Override
    public KeyedStateStore getKeyedStateStore() {
      return new StreamingRuntimeContext(context).keyedState();
    }
  }
}
