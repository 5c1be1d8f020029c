package io.weir.api;

import io.weir.api.config.CheckpointingOptions;

/**
 * Keeps state as objects on the heap, in copy-on-write tables, and writes full snapshots to the
 * checkpoint storage. Fast and simple; the state must fit in memory. The default backend ({@code
 * state.backend.type: hashmap}).
 */
public final class HashMapStateBackend implements StateBackend {

  @Override
  public String type() {
    return CheckpointingOptions.BACKEND_HASHMAP;
  }

  @Override
  public String toString() {
    return "HashMapStateBackend";
  }
}
