package io.weir.api.state;

import io.weir.api.typeutils.TypeInformation;
import io.weir.api.typeutils.TypeSerializer;

/** Describes a {@link ValueState}. */
public class ValueStateDescriptor<T> extends StateDescriptor<T> {

  private final T defaultValue;

  public ValueStateDescriptor(String name, TypeInformation<T> typeInfo) {
    this(name, typeInfo, null);
  }

  /** A value state that reads {@code defaultValue} for keys that have none. */
  public ValueStateDescriptor(String name, TypeInformation<T> typeInfo, T defaultValue) {
    super(name, typeInfo);
    this.defaultValue = defaultValue;
  }

  public ValueStateDescriptor(String name, Class<T> type) {
    this(name, TypeInformation.of(type), null);
  }

  public ValueStateDescriptor(String name, TypeSerializer<T> serializer) {
    super(name, serializer);
    this.defaultValue = null;
  }

  public T getDefaultValue() {
    return defaultValue;
  }

  @Override
  public Kind getKind() {
    return Kind.VALUE;
  }
}
