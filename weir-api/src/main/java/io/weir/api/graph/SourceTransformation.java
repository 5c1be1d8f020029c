package io.weir.api.graph;

import io.weir.api.source.Source;
import io.weir.api.typeutils.TypeInformation;
import java.util.List;

/** A source of the plan. */
public final class SourceTransformation<T> extends Transformation<T> {

  private final Source<T, ?> source;

  public SourceTransformation(
      String name, Source<T, ?> source, TypeInformation<T> outputType, int parallelism) {
    super(name, outputType, parallelism);
    this.source = source;
  }

  public Source<T, ?> getSource() {
    return source;
  }

  @Override
  public List<Transformation<?>> getInputs() {
    return List.of();
  }
}
