package io.weir.api.functions;

import io.weir.api.state.StateDescriptor;
import java.util.Collection;
import java.util.List;

/**
 * A function with a lifecycle and access to its {@link RuntimeContext}. The runtime calls {@link
 * #setRuntimeContext} first, then {@link #open} once before the first element, then {@link #close}
 * once after the last (also after a failure). All on the task thread.
 */
public interface RichFunction extends Function {

  default void open(OpenContext openContext) throws Exception {}

  default void close() throws Exception {}

  /**
   * The states this function registers (keyed or operator state), declared up front as in Flink's
   * DataStream V2 {@code usesStates()}. When a job resumes from a checkpoint or savepoint, the
   * serializers of declared states are checked against the restored state at submission, before any
   * task runs, so an incompatible change fails the submission. A state that is not declared is
   * checked when it is registered, which fails the job once its tasks run. Called on the job's copy
   * of the function, before {@link #open}; must not depend on the runtime context.
   */
  default Collection<StateDescriptor<?>> usesStates() {
    return List.of();
  }

  RuntimeContext getRuntimeContext();

  void setRuntimeContext(RuntimeContext context);
}
