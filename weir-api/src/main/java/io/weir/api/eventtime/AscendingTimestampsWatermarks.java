package io.weir.api.eventtime;

import java.time.Duration;

/** Watermarks for timestamps that never decrease: the watermark trails the highest by 1 ms. */
public class AscendingTimestampsWatermarks<T> extends BoundedOutOfOrdernessWatermarks<T> {

  public AscendingTimestampsWatermarks() {
    super(Duration.ZERO);
  }
}
