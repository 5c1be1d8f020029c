package io.weir.api.graph;

import java.util.List;

/** A change of partitioning between its input and whatever consumes it; not an operator. */
public final class PartitionTransformation<T> extends Transformation<T> {

  private final Transformation<T> input;
  private final Partitioning partitioning;

  public PartitionTransformation(Transformation<T> input, Partitioning partitioning) {
    super(
        "Partition(" + partitioning.getClass().getSimpleName() + ")",
        input.getOutputType(),
        input.getParallelism());
    this.input = input;
    this.partitioning = partitioning;
  }

  public Transformation<T> getInput() {
    return input;
  }

  public Partitioning getPartitioning() {
    return partitioning;
  }

  @Override
  public List<Transformation<?>> getInputs() {
    return List.of(input);
  }
}
