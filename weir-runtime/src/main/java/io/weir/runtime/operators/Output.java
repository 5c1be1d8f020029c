package io.weir.runtime.operators;

/**
 * Where an operator emits records: the next chained operator, a network writer, or several. Task
 * thread only.
 */
public interface Output<T> {

  /** Emits {@code record}; {@code timestamp} is {@code RecordWriter.NO_TIMESTAMP} if none. */
  void collect(T record, long timestamp);
}
