package io.weir.api;

import io.weir.api.config.CheckpointingOptions;
import io.weir.api.config.Configuration;

/**
 * Where a job keeps its working state, chosen with {@link StreamEnvironment#setStateBackend}: the
 * counterpart of Flink's {@code StateBackend}. A backend is a description written into the job's
 * configuration ({@code state.backend.type}); the runtime builds the backend from it.
 */
public interface StateBackend {

  /** The {@code state.backend.type} value of this backend, e.g. {@code hashmap}. */
  String type();

  /** Writes this backend's settings into {@code configuration}; backends with options add them. */
  default void writeTo(Configuration configuration) {
    configuration.set(CheckpointingOptions.STATE_BACKEND, type());
  }
}
