package io.weir.api.eventtime;

/**
 * Makes watermarks from the timestamps of the records it sees, on every record ({@link #onEvent})
 * and periodically ({@link #onPeriodicEmit}, every {@code pipeline.auto-watermark-interval}). One
 * instance per source split or per parallel subtask of {@code assignTimestampsAndWatermarks}; task
 * thread only.
 */
public interface WatermarkGenerator<T> {

  /** Called for every record, with its (assigned) timestamp. */
  void onEvent(T event, long eventTimestamp, WatermarkOutput output);

  /** Called every {@code pipeline.auto-watermark-interval}. */
  void onPeriodicEmit(WatermarkOutput output);
}
