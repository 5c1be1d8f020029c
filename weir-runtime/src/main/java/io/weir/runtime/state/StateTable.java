package io.weir.runtime.state;

import io.weir.api.typeutils.DataOutputView;
import io.weir.api.typeutils.TypeSerializer;
import java.io.IOException;
import java.util.Map;
import java.util.function.BiConsumer;
import java.util.function.UnaryOperator;

/**
 * The values of one keyed state in one subtask, split by key group, with copy-on-write for
 * asynchronous snapshots.
 *
 * <p>A snapshot takes the current map of every key group by reference — no copying, so the
 * synchronous part costs one array copy per state — and from then on the map it holds is never
 * written again: the first write to a key group while a snapshot is in flight replaces that key
 * group's map with a copy that shares the values, since a write replaces a value and leaves the old
 * one as the snapshot holds it. Mutable values (see {@code valueCopier}) are deep-copied, all of a
 * key group's at once, only at the first read of that key group, since the caller may change what a
 * read returns. Only key groups written during the upload are copied, once per snapshot: blind
 * writes (a value state set without being read) copy no value. Task thread only, except {@link
 * Snapshot#release()}.
 */
final class StateTable<K, V> {

  private final int firstKeyGroup;
  private final KeyGroupStore<K, V>[] maps;

  /** For each key group, the snapshot epoch at which its map was last made private. */
  private final int[] ownedEpoch;

  /** For each key group, the snapshot epoch at which its values were last deep-copied. */
  private final int[] valuesOwnedEpoch;

  /** For each key group, whether its map was copied for a snapshot and not thawed since. */
  private final boolean[] copiedForSnapshot;

  private final KeyGroupStore.Layout layout;
  private UnaryOperator<V> valueCopier;
  private boolean mutableValues;
  private int epoch;
  private volatile int activeSnapshots;

  /**
   * @param valueCopier deep-copies a value; null when values are immutable
   * @param layout how each key group's entries are stored
   */
  @SuppressWarnings("unchecked")
  StateTable(KeyGroupRange range, UnaryOperator<V> valueCopier, KeyGroupStore.Layout layout) {
    this.firstKeyGroup = range.startKeyGroup();
    this.maps = new KeyGroupStore[range.getNumberOfKeyGroups()];
    this.ownedEpoch = new int[maps.length];
    this.valuesOwnedEpoch = new int[maps.length];
    this.copiedForSnapshot = new boolean[maps.length];
    PageArena arena = new PageArena();
    for (int i = 0; i < maps.length; i++) {
      maps[i] = KeyGroupStore.create(layout, arena);
    }
    this.layout = layout;
    setValueCopier(valueCopier);
  }

  /**
   * Replaces how values are deep-copied: a restored table is built with the copier of the
   * serializer that wrote it and gets the new one when the state is registered. Task thread, while
   * no snapshot is active.
   */
  void setValueCopier(UnaryOperator<V> valueCopier) {
    this.valueCopier = valueCopier;
    this.mutableValues = valueCopier != null && !layout.readsCopies();
  }

  /**
   * A read; for mutable values it also makes the key group and its values private, since callers
   * may change the value they get.
   */
  V get(K key, int keyGroup) {
    int i = keyGroup - firstKeyGroup;
    return (mutableValues ? valuesWritable(i) : maps[i]).get(key);
  }

  void put(K key, int keyGroup, V value) {
    writable(keyGroup - firstKeyGroup).put(key, value);
  }

  void remove(K key, int keyGroup) {
    writable(keyGroup - firstKeyGroup).remove(key);
  }

  /**
   * Key group {@code i}'s map, private to the table; its values may be a snapshot's too. Once no
   * snapshot is active, a map copied for one is told so before its next write.
   */
  private KeyGroupStore<K, V> writable(int i) {
    KeyGroupStore<K, V> map = maps[i];
    if (activeSnapshots > 0) {
      if (ownedEpoch[i] != epoch) {
        map = map.copy();
        maps[i] = map;
        ownedEpoch[i] = epoch;
        copiedForSnapshot[i] = true;
      }
    } else if (copiedForSnapshot[i]) {
      map.thaw();
      copiedForSnapshot[i] = false;
    }
    return map;
  }

  /**
   * Key group {@code i}'s map with values of its own: deep-copied if a snapshot taken since they
   * were last copied may hold them. A deep copy leaves them shared with no snapshot, older ones
   * included.
   */
  private KeyGroupStore<K, V> valuesWritable(int i) {
    KeyGroupStore<K, V> map = writable(i);
    if (activeSnapshots > 0 && valuesOwnedEpoch[i] != epoch) {
      map.copyValues(valueCopier);
      valuesOwnedEpoch[i] = epoch;
    }
    return map;
  }

  /** Installs restored entries of a key group. */
  void putAllRestored(int keyGroup, Map<K, V> entries) {
    KeyGroupStore<K, V> map = writable(keyGroup - firstKeyGroup);
    entries.forEach(map::put);
  }

  int size() {
    int n = 0;
    for (KeyGroupStore<K, V> m : maps) {
      n += m.size();
    }
    return n;
  }

  void forEach(BiConsumer<K, V> action) {
    for (KeyGroupStore<K, V> m : maps) {
      m.forEach(action);
    }
  }

  /**
   * Freezes the current content for an asynchronous snapshot: O(number of key groups), no entry is
   * copied here.
   */
  Snapshot<K, V> snapshot() {
    epoch++;
    synchronized (this) {
      activeSnapshots++;
    }
    return new Snapshot<>(this, firstKeyGroup, maps.clone());
  }

  /** The frozen maps of one snapshot, safe to read from another thread until released. */
  static final class Snapshot<K, V> {
    private final StateTable<K, V> table;
    private final int firstKeyGroup;
    private final KeyGroupStore<K, V>[] maps;
    private boolean released;

    Snapshot(StateTable<K, V> table, int firstKeyGroup, KeyGroupStore<K, V>[] maps) {
      this.table = table;
      this.firstKeyGroup = firstKeyGroup;
      this.maps = maps;
    }

    Map<K, V> keyGroup(int keyGroup) {
      return maps[keyGroup - firstKeyGroup].asMap();
    }

    /** Writes a key group as {@link KeyGroupStore#writeEntries} does. */
    void writeKeyGroup(
        int keyGroup, TypeSerializer<K> keys, TypeSerializer<V> values, DataOutputView out)
        throws IOException {
      maps[keyGroup - firstKeyGroup].writeEntries(keys, values, out);
    }

    /** The upload is done: writes no longer need to copy for this snapshot. */
    synchronized void release() {
      if (!released) {
        released = true;
        synchronized (table) {
          table.activeSnapshots--;
        }
      }
    }
  }
}
