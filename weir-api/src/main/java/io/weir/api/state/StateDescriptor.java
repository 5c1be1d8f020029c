package io.weir.api.state;

import io.weir.api.typeutils.TypeInformation;
import io.weir.api.typeutils.TypeSerializer;
import java.util.Objects;

/**
 * Names a state and says how its values are serialized. The name identifies the state within its
 * operator across checkpoints, so keep it stable.
 */
public abstract class StateDescriptor<T> {

  /** The kinds of state, each with its own access pattern in the backends. */
  public enum Kind {
    VALUE,
    LIST,
    MAP,
    REDUCING,
    AGGREGATING
  }

  private final String name;
  private final TypeInformation<T> typeInfo;
  private final TypeSerializer<T> serializer;

  protected StateDescriptor(String name, TypeInformation<T> typeInfo) {
    this.name = checkName(name);
    this.typeInfo = Objects.requireNonNull(typeInfo, "type information of state '" + name + "'");
    this.serializer = null;
  }

  protected StateDescriptor(String name, TypeSerializer<T> serializer) {
    this.name = checkName(name);
    this.typeInfo = null;
    this.serializer = Objects.requireNonNull(serializer, "serializer of state '" + name + "'");
  }

  private static String checkName(String name) {
    if (name == null || name.isBlank()) {
      throw new IllegalArgumentException("A state descriptor needs a non-empty name");
    }
    return name;
  }

  public String getName() {
    return name;
  }

  public abstract Kind getKind();

  /** The serializer of the stored values (for a map state, of the map values). */
  public TypeSerializer<T> createSerializer() {
    return serializer != null ? serializer.duplicate() : typeInfo.createSerializer();
  }

  @Override
  public String toString() {
    return getKind() + " state '" + name + "'";
  }
}
