package io.weir.api.eventtime;

import java.io.Serializable;

/** Creates a {@link WatermarkGenerator} in each subtask or for each split. */
@FunctionalInterface
public interface WatermarkGeneratorSupplier<T> extends Serializable {

  /** What a generator may learn about where it runs; empty for now, as most of Flink's. */
  interface Context {}

  WatermarkGenerator<T> createWatermarkGenerator(Context context);
}
