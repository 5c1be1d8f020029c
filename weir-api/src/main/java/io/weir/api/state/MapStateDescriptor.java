package io.weir.api.state;

import io.weir.api.typeutils.TypeInformation;
import io.weir.api.typeutils.TypeSerializer;
import java.util.Objects;

/** Describes a {@link MapState}; the inherited type is that of the map values. */
public class MapStateDescriptor<K, V> extends StateDescriptor<V> {

  private final TypeInformation<K> keyType;
  private final TypeSerializer<K> keySerializer;

  public MapStateDescriptor(String name, TypeInformation<K> keyType, TypeInformation<V> valueType) {
    super(name, valueType);
    this.keyType = Objects.requireNonNull(keyType, "map key type of state '" + name + "'");
    this.keySerializer = null;
  }

  public MapStateDescriptor(String name, Class<K> keyType, Class<V> valueType) {
    this(name, TypeInformation.of(keyType), TypeInformation.of(valueType));
  }

  public MapStateDescriptor(
      String name, TypeSerializer<K> keySerializer, TypeSerializer<V> valueSerializer) {
    super(name, valueSerializer);
    this.keyType = null;
    this.keySerializer = Objects.requireNonNull(keySerializer, "map key serializer");
  }

  public TypeSerializer<K> createKeySerializer() {
    return keySerializer != null ? keySerializer.duplicate() : keyType.createSerializer();
  }

  @Override
  public Kind getKind() {
    return Kind.MAP;
  }
}
