package io.weir.state.rocksdb;

import io.weir.api.functions.AggregateFunction;
import io.weir.api.functions.ReduceFunction;
import io.weir.api.state.AggregatingState;
import io.weir.api.state.AggregatingStateDescriptor;
import io.weir.api.state.ListState;
import io.weir.api.state.MapState;
import io.weir.api.state.ReducingState;
import io.weir.api.state.ReducingStateDescriptor;
import io.weir.api.state.ValueState;
import io.weir.api.state.ValueStateDescriptor;
import io.weir.api.typeutils.DataInputDeserializer;
import io.weir.api.typeutils.DataOutputSerializer;
import io.weir.api.typeutils.TypeSerializer;
import java.io.IOException;
import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Objects;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.WriteBatch;

/** The RocksDB implementations of the keyed state interfaces. */
final class RocksDBStates {

  /** Separates the operands of RocksDB's string-append merge operator. */
  static final byte LIST_DELIMITER = ',';

  private RocksDBStates() {}

  /** What every state shares: the backend, the column family and value (de)serialization. */
  abstract static class Base<K, V> {
    final RocksDBKeyedStateBackend<K> backend;
    final RocksDBColumn column;
    final DataInputDeserializer in = new DataInputDeserializer();

    Base(RocksDBKeyedStateBackend<K> backend, RocksDBColumn column) {
      this.backend = backend;
      this.column = column;
    }

    @SuppressWarnings("unchecked")
    final TypeSerializer<V> valueSerializer() {
      return (TypeSerializer<V>) column.valueSerializer;
    }

    final byte[] serialize(V value) throws IOException {
      DataOutputSerializer out = backend.valueOut;
      out.clear();
      valueSerializer().serialize(value, out);
      return out.getCopyOfBuffer();
    }

    final V deserialize(byte[] bytes) throws IOException {
      in.setBuffer(bytes, 0, bytes.length);
      return valueSerializer().deserialize(in);
    }

    final byte[] getRaw() throws RocksDBException {
      return backend.db.get(column.handle, backend.readOptions, backend.currentKeyBytes());
    }

    public void clear() {
      try {
        backend.db.delete(column.handle, backend.writeOptions, backend.currentKeyBytes());
      } catch (RocksDBException e) {
        throw failure("clear", e);
      }
    }

    final IllegalStateException failure(String action, Exception e) {
      return new IllegalStateException(
          "RocksDB state '"
              + column.name
              + "' of operator '"
              + backend.operatorName
              + "' failed to "
              + action
              + ": "
              + e.getMessage(),
          e);
    }
  }

  /**
   * A state that reads and writes one whole value per key: value, reducing and aggregating state.
   * Its values go through the backend's {@link SingleValueStore} (the write cache, when there is
   * one), never straight to RocksDB, so that the cache is never bypassed.
   */
  abstract static class Single<K, V> extends Base<K, V> {

    Single(RocksDBKeyedStateBackend<K> backend, RocksDBColumn column) {
      super(backend, column);
    }

    final V getValue() throws IOException, RocksDBException {
      byte[] bytes = backend.singleValues.get(column);
      return bytes == null ? null : deserialize(bytes);
    }

    final void putValue(V value) throws IOException, RocksDBException {
      DataOutputSerializer out = backend.valueOut;
      out.clear();
      valueSerializer().serialize(value, out);
      // From the reused buffer: the store copies what it keeps.
      backend.singleValues.put(column, out.getSharedBuffer(), out.length());
    }

    @Override
    public final void clear() {
      try {
        backend.singleValues.delete(column);
      } catch (RocksDBException e) {
        throw failure("clear", e);
      }
    }
  }

  static final class Value<K, T> extends Single<K, T> implements ValueState<T> {
    private final T defaultValue;

    Value(
        RocksDBKeyedStateBackend<K> backend,
        RocksDBColumn column,
        ValueStateDescriptor<T> descriptor) {
      super(backend, column);
      this.defaultValue = descriptor.getDefaultValue();
    }

    @Override
    public T value() {
      try {
        T v = getValue();
        return v != null ? v : defaultValue;
      } catch (IOException | RocksDBException e) {
        throw failure("read", e);
      }
    }

    @Override
    public void update(T value) {
      if (value == null) {
        clear();
        return;
      }
      try {
        putValue(value);
      } catch (IOException | RocksDBException e) {
        throw failure("write", e);
      }
    }
  }

  static final class List<K, T> extends Base<K, T> implements ListState<T> {

    List(RocksDBKeyedStateBackend<K> backend, RocksDBColumn column) {
      super(backend, column);
    }

    @Override
    public Iterable<T> get() throws Exception {
      byte[] bytes = getRaw();
      if (bytes == null) {
        return Collections.emptyList();
      }
      java.util.List<T> elements = new ArrayList<>();
      in.setBuffer(bytes, 0, bytes.length);
      while (in.available() > 0) {
        int length = in.readInt();
        int end = in.getPosition() + length;
        elements.add(valueSerializer().deserialize(in));
        in.setBuffer(bytes, end, bytes.length - end);
        if (in.available() > 0) {
          in.readByte(); // the delimiter between merged operands
        }
      }
      return Collections.unmodifiableList(elements);
    }

    /** Elements as {@code int length | bytes}, joined by the merge delimiter. */
    private byte[] frame(java.util.List<T> elements) throws IOException {
      DataOutputSerializer out = backend.valueOut;
      out.clear();
      for (T element : elements) {
        Objects.requireNonNull(element, "ListState does not hold null elements");
        if (out.length() > 0) {
          out.writeByte(LIST_DELIMITER);
        }
        int lengthAt = out.length();
        out.writeInt(0);
        valueSerializer().serialize(element, out);
        int end = out.length();
        out.setPosition(lengthAt);
        out.writeInt(end - lengthAt - 4);
        out.setPosition(end);
      }
      return out.getCopyOfBuffer();
    }

    @Override
    public void add(T value) throws Exception {
      Objects.requireNonNull(value, "ListState does not hold null elements");
      backend.db.merge(
          column.handle,
          backend.writeOptions,
          backend.currentKeyBytes(),
          frame(java.util.List.of(value)));
    }

    @Override
    public void addAll(java.util.List<T> values) throws Exception {
      if (values == null || values.isEmpty()) {
        return;
      }
      backend.db.merge(
          column.handle, backend.writeOptions, backend.currentKeyBytes(), frame(values));
    }

    @Override
    public void update(java.util.List<T> values) throws Exception {
      if (values == null || values.isEmpty()) {
        clear();
        return;
      }
      backend.db.put(column.handle, backend.writeOptions, backend.currentKeyBytes(), frame(values));
    }
  }

  /**
   * Map state: an entry per RocksDB key (the current key's map prefix and the entry's serialized
   * key). Point accesses go through the backend's {@link SingleValueStore}, the write cache when
   * there is one, as value state does, so that an entry read and written per record (a window's
   * accumulator) is read from RocksDB once and written back when evicted or flushed. The first read
   * of the whole state (its entries, keys or values, an emptiness check, a clear) flushes the cache
   * and turns that off for the state ({@link RocksDBColumn#entriesCached}): a prefix scan of
   * RocksDB must see every entry, and a state read whole per record would gain little from the
   * cache.
   */
  static final class Map<K, UK, UV> extends Base<K, UV> implements MapState<UK, UV> {
    private final DataInputDeserializer keyIn = new DataInputDeserializer();

    /**
     * The last entry key handed to the write cache, and its hash: a read and then a write of the
     * same entry (an accumulator's, once per window in a sliding window's contents) share one copy
     * and one hash, and the write finds the cache's entry by identity. Never changed once made.
     */
    private byte[] lastEntry;

    private int lastEntryHash;

    Map(RocksDBKeyedStateBackend<K> backend, RocksDBColumn column) {
      super(backend, column);
    }

    @SuppressWarnings("unchecked")
    private TypeSerializer<UK> mapKeys() {
      return (TypeSerializer<UK>) column.mapKeySerializer;
    }

    /**
     * Writes the RocksDB key of entry {@code key} of the current key into the backend's reused key
     * buffer ({@code backend.keyOut}, valid until the next call): no copy per access.
     */
    private DataOutputSerializer entryKeyInBuffer(UK key) throws IOException {
      Objects.requireNonNull(key, "MapState keys must not be null");
      byte[] prefix = backend.currentMapPrefix();
      DataOutputSerializer out = backend.keyOut;
      out.clear();
      out.write(prefix);
      mapKeys().serialize(key, out);
      return out;
    }

    private byte[] entryKey(UK key) throws IOException {
      return entryKeyInBuffer(key).getCopyOfBuffer();
    }

    /**
     * The entry key in {@code k} as an array of its own for the write cache: {@link #lastEntry}
     * again when it holds the same bytes, a new copy otherwise. Its hash is {@link #lastEntryHash}.
     */
    private byte[] cachedEntryKey(DataOutputSerializer k) {
      byte[] last = lastEntry;
      int length = k.length();
      if (last == null
          || last.length != length
          || !Arrays.equals(last, 0, length, k.getSharedBuffer(), 0, length)) {
        last = k.getCopyOfBuffer();
        lastEntry = last;
        lastEntryHash = Arrays.hashCode(last);
      }
      return last;
    }

    /** Before a prefix scan: the cache's updates in RocksDB, and no caching of entries from now. */
    private void readingWhole() throws RocksDBException {
      if (column.entriesCached) {
        column.entriesCached = false;
        backend.singleValues.flush();
      }
    }

    /** The serialized value of entry {@code key} of the current key, or null. */
    private byte[] getSerialized(UK key) throws IOException, RocksDBException {
      DataOutputSerializer k = entryKeyInBuffer(key);
      if (column.entriesCached) {
        byte[] entry = cachedEntryKey(k);
        return backend.singleValues.get(column, entry, lastEntryHash);
      }
      return backend.db.get(column.handle, backend.readOptions, k.getSharedBuffer(), 0, k.length());
    }

    @Override
    public UV get(UK key) throws Exception {
      byte[] bytes = getSerialized(key);
      return bytes == null ? null : deserialize(bytes);
    }

    @Override
    public void put(UK key, UV value) throws Exception {
      DataOutputSerializer k = entryKeyInBuffer(key);
      DataOutputSerializer v = backend.valueOut;
      v.clear();
      valueSerializer().serialize(value, v);
      if (column.entriesCached) {
        byte[] entry = cachedEntryKey(k);
        // The value from the reused buffer: the store copies what it keeps.
        backend.singleValues.put(column, entry, lastEntryHash, v.getSharedBuffer(), v.length());
        return;
      }
      backend.db.put(
          column.handle,
          backend.writeOptions,
          k.getSharedBuffer(),
          0,
          k.length(),
          v.getSharedBuffer(),
          0,
          v.length());
    }

    @Override
    public void putAll(java.util.Map<UK, UV> map) throws Exception {
      if (column.entriesCached) {
        for (java.util.Map.Entry<UK, UV> e : map.entrySet()) {
          put(e.getKey(), e.getValue());
        }
        return;
      }
      try (WriteBatch batch = new WriteBatch()) {
        for (java.util.Map.Entry<UK, UV> e : map.entrySet()) {
          batch.put(column.handle, entryKey(e.getKey()), serialize(e.getValue()));
        }
        backend.db.write(backend.writeOptions, batch);
      }
    }

    @Override
    public void remove(UK key) throws Exception {
      DataOutputSerializer k = entryKeyInBuffer(key);
      if (column.entriesCached) {
        byte[] entry = cachedEntryKey(k);
        backend.singleValues.delete(column, entry, lastEntryHash);
        return;
      }
      backend.db.delete(column.handle, backend.writeOptions, k.getSharedBuffer(), 0, k.length());
    }

    @Override
    public boolean contains(UK key) throws Exception {
      return getSerialized(key) != null;
    }

    /** Every entry of the current key, read by prefix (a copy: safe to modify the state after). */
    private java.util.List<java.util.Map.Entry<UK, UV>> read(boolean firstOnly)
        throws IOException, RocksDBException {
      readingWhole();
      byte[] prefix = backend.currentMapPrefix();
      java.util.List<java.util.Map.Entry<UK, UV>> entries = new ArrayList<>();
      try (RocksIterator it = backend.db.newIterator(column.handle, backend.readOptions)) {
        for (it.seek(prefix); it.isValid(); it.next()) {
          byte[] key = it.key();
          if (!RocksDBKeyedStateBackend.startsWith(key, prefix)) {
            break;
          }
          keyIn.setBuffer(key, prefix.length, key.length - prefix.length);
          entries.add(
              new AbstractMap.SimpleImmutableEntry<>(
                  mapKeys().deserialize(keyIn), deserialize(it.value())));
          if (firstOnly) {
            break;
          }
        }
      }
      return entries;
    }

    @Override
    public Iterable<java.util.Map.Entry<UK, UV>> entries() throws Exception {
      return Collections.unmodifiableList(read(false));
    }

    @Override
    public Iterable<UK> keys() throws Exception {
      java.util.List<UK> keys = new ArrayList<>();
      read(false).forEach(e -> keys.add(e.getKey()));
      return Collections.unmodifiableList(keys);
    }

    @Override
    public Iterable<UV> values() throws Exception {
      java.util.List<UV> values = new ArrayList<>();
      read(false).forEach(e -> values.add(e.getValue()));
      return Collections.unmodifiableList(values);
    }

    @Override
    public boolean isEmpty() throws Exception {
      return read(true).isEmpty();
    }

    @Override
    public void clear() {
      try {
        readingWhole();
      } catch (RocksDBException e) {
        throw failure("clear", e);
      }
      byte[] prefix = backend.currentMapPrefix();
      try (WriteBatch batch = new WriteBatch();
          RocksIterator it = backend.db.newIterator(column.handle, backend.readOptions)) {
        for (it.seek(prefix); it.isValid(); it.next()) {
          byte[] key = it.key();
          if (!RocksDBKeyedStateBackend.startsWith(key, prefix)) {
            break;
          }
          batch.delete(column.handle, key);
        }
        backend.db.write(backend.writeOptions, batch);
      } catch (RocksDBException e) {
        throw failure("clear", e);
      }
    }
  }

  static final class Reducing<K, T> extends Single<K, T> implements ReducingState<T> {
    private final ReduceFunction<T> reduce;

    Reducing(
        RocksDBKeyedStateBackend<K> backend,
        RocksDBColumn column,
        ReducingStateDescriptor<T> descriptor) {
      super(backend, column);
      this.reduce = descriptor.getReduceFunction();
    }

    @Override
    public T get() throws Exception {
      return getValue();
    }

    @Override
    public void add(T value) throws Exception {
      T old = getValue();
      putValue(old == null ? value : reduce.reduce(old, value));
    }
  }

  static final class Aggregating<K, IN, ACC, OUT> extends Single<K, ACC>
      implements AggregatingState<IN, OUT> {
    private final AggregateFunction<IN, ACC, OUT> aggregate;

    Aggregating(
        RocksDBKeyedStateBackend<K> backend,
        RocksDBColumn column,
        AggregatingStateDescriptor<IN, ACC, OUT> descriptor) {
      super(backend, column);
      this.aggregate = descriptor.getAggregateFunction();
    }

    @Override
    public OUT get() throws Exception {
      ACC acc = getValue();
      return acc == null ? null : aggregate.getResult(acc);
    }

    @Override
    public void add(IN value) throws Exception {
      ACC acc = getValue();
      if (acc == null) {
        acc = aggregate.createAccumulator();
      }
      putValue(aggregate.add(value, acc));
    }
  }
}
