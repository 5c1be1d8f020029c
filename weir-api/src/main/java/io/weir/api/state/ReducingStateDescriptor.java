package io.weir.api.state;

import io.weir.api.functions.ReduceFunction;
import io.weir.api.typeutils.TypeInformation;
import io.weir.api.typeutils.TypeSerializer;
import java.util.Objects;

/** Describes a {@link ReducingState}. */
public class ReducingStateDescriptor<T> extends StateDescriptor<T> {

  private final ReduceFunction<T> reduceFunction;

  public ReducingStateDescriptor(
      String name, ReduceFunction<T> reduceFunction, TypeInformation<T> type) {
    super(name, type);
    this.reduceFunction = Objects.requireNonNull(reduceFunction, "reduce function");
  }

  public ReducingStateDescriptor(String name, ReduceFunction<T> reduceFunction, Class<T> type) {
    this(name, reduceFunction, TypeInformation.of(type));
  }

  public ReducingStateDescriptor(
      String name, ReduceFunction<T> reduceFunction, TypeSerializer<T> serializer) {
    super(name, serializer);
    this.reduceFunction = Objects.requireNonNull(reduceFunction, "reduce function");
  }

  public ReduceFunction<T> getReduceFunction() {
    return reduceFunction;
  }

  @Override
  public Kind getKind() {
    return Kind.REDUCING;
  }
}
