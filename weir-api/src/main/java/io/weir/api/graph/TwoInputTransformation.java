package io.weir.api.graph;

import io.weir.api.typeutils.TypeInformation;
import java.util.List;

/** An operation on two inputs; keyed when both key contexts are set. */
public final class TwoInputTransformation<I1, I2, O> extends Transformation<O> {

  private final Transformation<I1> input1;
  private final Transformation<I2> input2;
  private final Operation operation;
  private final KeyContext<I1, ?> keyContext1;
  private final KeyContext<I2, ?> keyContext2;

  public TwoInputTransformation(
      Transformation<I1> input1,
      Transformation<I2> input2,
      String name,
      Operation operation,
      TypeInformation<O> outputType,
      int parallelism,
      KeyContext<I1, ?> keyContext1,
      KeyContext<I2, ?> keyContext2) {
    super(name, outputType, parallelism);
    this.input1 = input1;
    this.input2 = input2;
    this.operation = operation;
    this.keyContext1 = keyContext1;
    this.keyContext2 = keyContext2;
  }

  public Transformation<I1> getInput1() {
    return input1;
  }

  public Transformation<I2> getInput2() {
    return input2;
  }

  public Operation getOperation() {
    return operation;
  }

  public KeyContext<I1, ?> getKeyContext1() {
    return keyContext1;
  }

  public KeyContext<I2, ?> getKeyContext2() {
    return keyContext2;
  }

  @Override
  public List<Transformation<?>> getInputs() {
    return List.of(input1, input2);
  }
}
