package io.weir.api.typeutils;

import static io.weir.api.typeutils.CompositeSerializers.copyNullable;
import static io.weir.api.typeutils.CompositeSerializers.readNullable;
import static io.weir.api.typeutils.CompositeSerializers.writeNullable;

import java.io.IOException;
import java.util.HashMap;
import java.util.Map;

/**
 * {@code java.util.Map<K, V>}: an int size, then each key and value behind null markers. Reads
 * return a {@link HashMap}.
 */
final class MapSerializer<K, V> extends TypeSerializer<Map<K, V>> {

  private final TypeSerializer<K> keySerializer;
  private final TypeSerializer<V> valueSerializer;

  MapSerializer(TypeSerializer<K> keySerializer, TypeSerializer<V> valueSerializer) {
    this.keySerializer = keySerializer;
    this.valueSerializer = valueSerializer;
  }

  TypeSerializer<K> keySerializer() {
    return keySerializer;
  }

  TypeSerializer<V> valueSerializer() {
    return valueSerializer;
  }

  @Override
  public boolean isImmutableType() {
    return false;
  }

  @Override
  @SuppressWarnings("ReferenceEquality") // a stateless element serializer duplicates to itself
  public TypeSerializer<Map<K, V>> duplicate() {
    TypeSerializer<K> keys = keySerializer.duplicate();
    TypeSerializer<V> values = valueSerializer.duplicate();
    return keys == keySerializer && values == valueSerializer
        ? this
        : new MapSerializer<>(keys, values);
  }

  @Override
  public Map<K, V> copy(Map<K, V> from) {
    Map<K, V> copy = new HashMap<>(capacityFor(from.size()));
    for (Map.Entry<K, V> entry : from.entrySet()) {
      copy.put(
          copyNullable(entry.getKey(), keySerializer),
          copyNullable(entry.getValue(), valueSerializer));
    }
    return copy;
  }

  private static int capacityFor(int size) {
    return (int) (size / 0.75f) + 1;
  }

  @Override
  public void serialize(Map<K, V> record, DataOutputView target) throws IOException {
    int size = record.size();
    target.writeInt(size);
    int written = 0;
    for (Map.Entry<K, V> entry : record.entrySet()) {
      writeNullable(entry.getKey(), keySerializer, target);
      writeNullable(entry.getValue(), valueSerializer, target);
      written++;
    }
    if (written != size) {
      throw new IOException(
          "The map changed while it was serialized: size() was "
              + size
              + " but it had "
              + written
              + " entries");
    }
  }

  @Override
  public Map<K, V> deserialize(DataInputView source) throws IOException {
    int size = ListSerializer.readSize(source);
    Map<K, V> map = new HashMap<>(capacityFor(Math.min(size, 1 << 16)));
    for (int i = 0; i < size; i++) {
      K key = readNullable(keySerializer, source);
      map.put(key, readNullable(valueSerializer, source));
    }
    return map;
  }

  @Override
  public void copy(DataInputView source, DataOutputView target) throws IOException {
    int size = ListSerializer.readSize(source);
    target.writeInt(size);
    for (int i = 0; i < size; i++) {
      CompositeSerializers.copyNullable(keySerializer, source, target);
      CompositeSerializers.copyNullable(valueSerializer, source, target);
    }
  }

  @Override
  public TypeSerializerSnapshot<Map<K, V>> snapshotConfiguration() {
    return new Snapshot<>(this);
  }

  @Override
  public boolean equals(Object obj) {
    return obj instanceof MapSerializer<?, ?> that
        && keySerializer.equals(that.keySerializer)
        && valueSerializer.equals(that.valueSerializer);
  }

  @Override
  public int hashCode() {
    return 31 * (31 * MapSerializer.class.hashCode() + keySerializer.hashCode())
        + valueSerializer.hashCode();
  }

  @Override
  public String toString() {
    return "Map<" + keySerializer + ", " + valueSerializer + ">";
  }

  /** The key and value serializers' snapshots. */
  static final class Snapshot<K, V> implements TypeSerializerSnapshot<Map<K, V>> {
    private static final int VERSION = 1;

    private TypeSerializerSnapshot<?>[] nested;

    public Snapshot() {}

    Snapshot(MapSerializer<K, V> serializer) {
      this.nested =
          CompositeSerializers.snapshotsOf(
              new TypeSerializer<?>[] {serializer.keySerializer, serializer.valueSerializer});
    }

    @Override
    public int getCurrentVersion() {
      return VERSION;
    }

    @Override
    public void writeSnapshot(DataOutputView out) throws IOException {
      CompositeSerializers.writeNestedSnapshots(out, nested);
    }

    @Override
    public void readSnapshot(int readVersion, DataInputView in, ClassLoader classLoader)
        throws IOException {
      CompositeSerializers.checkVersion(readVersion, VERSION, "map serializer");
      nested = CompositeSerializers.readNestedSnapshots(in, classLoader);
      if (nested.length != 2) {
        throw new IOException("Corrupt map serializer snapshot: " + nested.length + " elements");
      }
    }

    @Override
    @SuppressWarnings("unchecked")
    public TypeSerializer<Map<K, V>> restoreSerializer() {
      return new MapSerializer<>(
          (TypeSerializer<K>) nested[0].restoreSerializer(),
          (TypeSerializer<V>) nested[1].restoreSerializer());
    }

    @Override
    public TypeSerializerSchemaCompatibility<Map<K, V>> resolveSchemaCompatibility(
        TypeSerializer<Map<K, V>> newSerializer) {
      if (!(newSerializer instanceof MapSerializer<K, V> map)) {
        return TypeSerializerSchemaCompatibility.incompatible(
            "The state was a Map but is now read with " + newSerializer);
      }
      return CompositeSerializers.resolveNested(
          "Map",
          new String[] {"key", "value"},
          nested,
          new TypeSerializer<?>[] {map.keySerializer, map.valueSerializer});
    }
  }
}
