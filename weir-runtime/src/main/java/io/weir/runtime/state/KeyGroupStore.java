package io.weir.runtime.state;

import io.weir.api.state.StateDescriptor;
import io.weir.api.typeutils.DataOutputView;
import io.weir.api.typeutils.TypeSerializer;
import io.weir.api.typeutils.Types;
import java.io.IOException;
import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;
import java.util.function.BiConsumer;
import java.util.function.UnaryOperator;

/**
 * The entries of one keyed state in one key group: what {@link StateTable} keeps per key group and
 * freezes for a snapshot. Task thread only; a frozen store (one a snapshot holds) is only read.
 */
interface KeyGroupStore<K, V> {

  /** The value of {@code key}, or null. */
  V get(K key);

  /** Sets {@code key}'s value; {@code value} is never null. */
  void put(K key, V value);

  void remove(K key);

  int size();

  void forEach(BiConsumer<? super K, ? super V> action);

  /**
   * A private copy for copy-on-write that shares the values: enough for writes, which replace a
   * value and never change it.
   */
  KeyGroupStore<K, V> copy();

  /** Replaces every value by {@code copier}'s deep copy of it, in this (private) store. */
  void copyValues(UnaryOperator<V> copier);

  /**
   * No snapshot holds the store this one was copied from any longer: a store that shares more than
   * its values with its copies (see {@link LongBytesStore}) may write over what they shared.
   */
  default void thaw() {}

  /** The entries, in no particular order; the store must not change meanwhile. */
  Iterator<Map.Entry<K, V>> iterator();

  /**
   * Writes the number of entries, then each key and value by these serializers: a key group of a
   * value state in a heap snapshot.
   */
  default void writeEntries(TypeSerializer<K> keys, TypeSerializer<V> values, DataOutputView out)
      throws IOException {
    out.writeInt(size());
    for (Iterator<Map.Entry<K, V>> i = iterator(); i.hasNext(); ) {
      Map.Entry<K, V> e = i.next();
      keys.serialize(e.getKey(), out);
      values.serialize(e.getValue(), out);
    }
  }

  /** A read-only view for a snapshot's writer. */
  default Map<K, V> asMap() {
    KeyGroupStore<K, V> store = this;
    return new AbstractMap<>() {
      @Override
      public int size() {
        return store.size();
      }

      @Override
      @SuppressWarnings("unchecked")
      public V get(Object key) {
        return key == null ? null : store.get((K) key);
      }

      @Override
      public Set<Entry<K, V>> entrySet() {
        return new AbstractSet<>() {
          @Override
          public int size() {
            return store.size();
          }

          @Override
          public Iterator<Entry<K, V>> iterator() {
            return store.iterator();
          }
        };
      }
    };
  }

  /**
   * The most entries an open-addressing store of {@code capacity} slots holds before it doubles:
   * 13/16 of them, so that a store is between 41 and 81 % full. A lookup that hits (every access
   * but a key's first) probes 3 slots on average at the highest load, within one or two cache
   * lines, while the smaller table keeps more of a task's state in the core's cache: a task spends
   * most of its time on the cache miss of its state's slot, not on the probes (W1 in {@code
   * BENCHMARKS.md}: 5/8 at most ran 22 % slower).
   */
  static int maxEntries(int capacity) {
    return capacity - (capacity >> 3) - (capacity >> 4);
  }

  /**
   * The store a state of this shape starts with in every key group.
   *
   * @param arena where the key groups of a {@link Layout#LONG_KEYS_BYTES_VALUES} state take their
   *     small pages, the same for all of them; unused by the other layouts
   */
  @SuppressWarnings("unchecked")
  static <K, V> KeyGroupStore<K, V> create(Layout layout, PageArena arena) {
    KeyGroupStore<?, ?> store =
        switch (layout) {
          case LONG_KEYS_LONG_VALUES -> new LongLongStore();
          case LONG_KEYS_BYTES_VALUES -> new LongBytesStore(arena);
          case OBJECTS -> new OpenHashStore<>();
        };
    return (KeyGroupStore<K, V>) store;
  }

  /**
   * How a state's entries are laid out: as objects in an {@link OpenHashStore}; for a value state
   * of {@code Long} keyed by {@code Long} (a count or sum per id, the commonest keyed state there
   * is), as primitive pairs in one array, which saves the boxed key and the boxed value their
   * memory and their cache misses on every access; for a value state of {@code byte[]} keyed by
   * {@code Long} (a serialized record per id), as bytes in pages ({@link LongBytesStore}), which
   * saves the collector an object per key.
   */
  enum Layout {
    OBJECTS,
    LONG_KEYS_LONG_VALUES,
    LONG_KEYS_BYTES_VALUES;

    private static final Class<?> LONG_SERIALIZER = Types.LONG.createSerializer().getClass();
    private static final Class<?> BYTES_SERIALIZER =
        Types.PRIMITIVE_ARRAY(Types.BYTE).createSerializer().getClass();

    /** The layout for a state of {@code kind} with these key and value serializers. */
    static Layout of(StateDescriptor.Kind kind, TypeSerializer<?> keys, TypeSerializer<?> values) {
      if (kind != StateDescriptor.Kind.VALUE || keys.getClass() != LONG_SERIALIZER) {
        return OBJECTS;
      }
      if (values.getClass() == LONG_SERIALIZER) {
        return LONG_KEYS_LONG_VALUES;
      }
      return values.getClass() == BYTES_SERIALIZER ? LONG_KEYS_BYTES_VALUES : OBJECTS;
    }

    /** Whether a read returns a copy of the value, which the caller may change freely. */
    boolean readsCopies() {
      return this == LONG_KEYS_BYTES_VALUES;
    }
  }
}
