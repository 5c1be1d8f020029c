package io.weir.runtime.state;

import java.util.HashMap;
import java.util.Map;
import java.util.function.BiConsumer;

/**
 * The values of one keyed state in one subtask, split by key group so that a snapshot can be
 * written per key group and a restore at another parallelism can take whole key groups. Task thread
 * only.
 */
final class StateTable<K, V> {

  private final int firstKeyGroup;
  private final HashMap<K, V>[] maps;

  @SuppressWarnings("unchecked")
  StateTable(KeyGroupRange range) {
    this.firstKeyGroup = range.startKeyGroup();
    this.maps = new HashMap[range.getNumberOfKeyGroups()];
    for (int i = 0; i < maps.length; i++) {
      maps[i] = new HashMap<>();
    }
  }

  V get(K key, int keyGroup) {
    return maps[keyGroup - firstKeyGroup].get(key);
  }

  void put(K key, int keyGroup, V value) {
    maps[keyGroup - firstKeyGroup].put(key, value);
  }

  void remove(K key, int keyGroup) {
    maps[keyGroup - firstKeyGroup].remove(key);
  }

  Map<K, V> mapOfKeyGroup(int keyGroup) {
    return maps[keyGroup - firstKeyGroup];
  }

  int size() {
    int n = 0;
    for (HashMap<K, V> m : maps) {
      n += m.size();
    }
    return n;
  }

  void forEach(BiConsumer<K, V> action) {
    for (HashMap<K, V> m : maps) {
      m.forEach(action);
    }
  }
}
