package io.weir.api.graph;

import io.weir.api.eventtime.WatermarkStrategy;
import io.weir.api.source.Source;
import io.weir.api.typeutils.TypeInformation;
import java.util.List;

/** A source of the plan. */
public final class SourceTransformation<T> extends Transformation<T> {

  private final Source<T, ?> source;
  private WatermarkStrategy<T> watermarkStrategy;

  public SourceTransformation(
      String name, Source<T, ?> source, TypeInformation<T> outputType, int parallelism) {
    super(name, outputType, parallelism);
    this.source = source;
  }

  public Source<T, ?> getSource() {
    return source;
  }

  /** How the source's records get event time; null (or no watermarks) when they do not. */
  public WatermarkStrategy<T> getWatermarkStrategy() {
    return watermarkStrategy;
  }

  public void setWatermarkStrategy(WatermarkStrategy<T> watermarkStrategy) {
    this.watermarkStrategy = watermarkStrategy;
  }

  @Override
  public List<Transformation<?>> getInputs() {
    return List.of();
  }
}
