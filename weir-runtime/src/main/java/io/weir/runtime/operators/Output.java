package io.weir.runtime.operators;

import io.weir.api.OutputTag;

/**
 * Where an operator emits records: the next chained operator, a network writer, or several. Task
 * thread only.
 */
public interface Output<T> {

  /** Emits {@code record}; {@code timestamp} is {@code RecordWriter.NO_TIMESTAMP} if none. */
  void collect(T record, long timestamp);

  /**
   * Emits {@code record} to the side output {@code tag}; dropped when nothing reads that side
   * output, as in Flink.
   */
  default <X> void collect(OutputTag<X> tag, X record, long timestamp) {}

  /** Forwards event time: the watermark goes to every downstream operator, side outputs too. */
  void emitWatermark(long watermark);

  /** Forwards that this output became idle (true) or active again (false). */
  void emitWatermarkStatus(boolean idle);
}
