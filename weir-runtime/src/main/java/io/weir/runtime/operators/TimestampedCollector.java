package io.weir.runtime.operators;

import io.weir.api.functions.Collector;

/** A {@link Collector} that stamps emitted records with the timestamp of the current input. */
final class TimestampedCollector<T> implements Collector<T> {

  private final Output<T> output;
  long timestamp;

  TimestampedCollector(Output<T> output) {
    this.output = output;
  }

  @Override
  public void collect(T record) {
    output.collect(record, timestamp);
  }
}
