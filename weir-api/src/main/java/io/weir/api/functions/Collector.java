package io.weir.api.functions;

/** Where a function emits its output. Called only from the task thread. */
public interface Collector<T> {
  void collect(T record);

  /** Releases resources; called by the runtime, not by user code. */
  default void close() {}
}
