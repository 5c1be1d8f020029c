package io.weir.api.graph;

import io.weir.api.typeutils.TypeInformation;
import java.util.List;

/** An operation on one input; keyed when {@link #getKeyContext()} is not null. */
public final class OneInputTransformation<I, O> extends Transformation<O> {

  private final Transformation<I> input;
  private final Operation operation;
  private final KeyContext<I, ?> keyContext;

  public OneInputTransformation(
      Transformation<I> input,
      String name,
      Operation operation,
      TypeInformation<O> outputType,
      int parallelism,
      KeyContext<I, ?> keyContext) {
    super(name, outputType, parallelism);
    this.input = input;
    this.operation = operation;
    this.keyContext = keyContext;
  }

  public Transformation<I> getInput() {
    return input;
  }

  public Operation getOperation() {
    return operation;
  }

  public KeyContext<I, ?> getKeyContext() {
    return keyContext;
  }

  @Override
  public List<Transformation<?>> getInputs() {
    return List.of(input);
  }
}
