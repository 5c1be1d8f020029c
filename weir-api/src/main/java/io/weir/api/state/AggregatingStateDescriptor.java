package io.weir.api.state;

import io.weir.api.functions.AggregateFunction;
import io.weir.api.typeutils.TypeInformation;
import io.weir.api.typeutils.TypeSerializer;
import java.util.Objects;

/** Describes an {@link AggregatingState}; the inherited type is that of the accumulator. */
public class AggregatingStateDescriptor<IN, ACC, OUT> extends StateDescriptor<ACC> {

  private final AggregateFunction<IN, ACC, OUT> aggregateFunction;

  public AggregatingStateDescriptor(
      String name,
      AggregateFunction<IN, ACC, OUT> aggregateFunction,
      TypeInformation<ACC> accumulatorType) {
    super(name, accumulatorType);
    this.aggregateFunction = Objects.requireNonNull(aggregateFunction, "aggregate function");
  }

  public AggregatingStateDescriptor(
      String name, AggregateFunction<IN, ACC, OUT> aggregateFunction, Class<ACC> accumulatorType) {
    this(name, aggregateFunction, TypeInformation.of(accumulatorType));
  }

  public AggregatingStateDescriptor(
      String name,
      AggregateFunction<IN, ACC, OUT> aggregateFunction,
      TypeSerializer<ACC> accumulatorSerializer) {
    super(name, accumulatorSerializer);
    this.aggregateFunction = Objects.requireNonNull(aggregateFunction, "aggregate function");
  }

  public AggregateFunction<IN, ACC, OUT> getAggregateFunction() {
    return aggregateFunction;
  }

  @Override
  public Kind getKind() {
    return Kind.AGGREGATING;
  }
}
