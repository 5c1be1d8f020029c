package io.weir.api.graph;

import java.util.List;

/** The elements of several streams of one type as one stream; not an operator. */
public final class UnionTransformation<T> extends Transformation<T> {

  private final List<Transformation<T>> inputs;

  public UnionTransformation(List<Transformation<T>> inputs) {
    super("Union", inputs.get(0).getOutputType(), inputs.get(0).getParallelism());
    this.inputs = List.copyOf(inputs);
  }

  public List<Transformation<T>> getUnionInputs() {
    return inputs;
  }

  @Override
  public List<Transformation<?>> getInputs() {
    return List.copyOf(inputs);
  }
}
