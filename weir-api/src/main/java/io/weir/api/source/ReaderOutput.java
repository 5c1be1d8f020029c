package io.weir.api.source;

/** Where a source reader emits records. Called only from the source's task thread. */
public interface ReaderOutput<T> {

  void collect(T record);

  /** Emits a record with an event timestamp in epoch milliseconds. */
  void collect(T record, long timestamp);
}
