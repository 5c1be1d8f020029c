package io.weir.api.eventtime;

/** Where a {@link WatermarkGenerator} emits watermarks and idleness. Task thread only. */
public interface WatermarkOutput {

  /** Emits a watermark; one at or below the last one is ignored (watermarks never go back). */
  void emitWatermark(Watermark watermark);

  /**
   * This output has no data for now: downstream operators stop waiting for its watermark and let
   * event time move on with their other inputs, until it emits again.
   */
  void markIdle();

  /** This output has data again (also implied by the next watermark or record). */
  void markActive();
}
