package io.weir.api.state;

import java.util.Optional;

/** Passed to {@code CheckpointedFunction.initializeState}. */
public interface FunctionInitializationContext {

  /** True when the task was started from a checkpoint or savepoint. */
  boolean isRestored();

  /** The checkpoint restored from, if any. */
  Optional<Long> getRestoredCheckpointId();

  OperatorStateStore getOperatorStateStore();

  /** Keyed state; only on a keyed stream, otherwise this throws with an explanation. */
  KeyedStateStore getKeyedStateStore();
}
