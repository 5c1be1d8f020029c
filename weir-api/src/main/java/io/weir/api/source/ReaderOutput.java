package io.weir.api.source;

/** Where a source reader emits records. Called only from the source's task thread. */
public interface ReaderOutput<T> {

  void collect(T record);

  /** Emits a record with an event timestamp in epoch milliseconds. */
  void collect(T record, long timestamp);

  /**
   * The output for the records of one split. With a watermark strategy on the source, each split
   * gets its own watermark generator, and the subtask's watermark is the minimum over its active
   * splits, as in Flink: a reader that interleaves splits (partitions) should emit each split's
   * records here. Without a strategy, this is the output itself.
   *
   * @param splitId a stable id of the split; it names the split's watermark in checkpoints
   */
  default ReaderOutput<T> createOutputForSplit(String splitId) {
    return this;
  }

  /** The split is finished: its watermark no longer holds back the subtask's. */
  default void releaseOutputForSplit(String splitId) {}
}
