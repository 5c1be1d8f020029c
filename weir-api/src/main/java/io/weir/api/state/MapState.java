package io.weir.api.state;

import java.util.Map;

/** A map per key. */
public interface MapState<K, V> extends State {

  V get(K key) throws Exception;

  void put(K key, V value) throws Exception;

  void putAll(Map<K, V> map) throws Exception;

  void remove(K key) throws Exception;

  boolean contains(K key) throws Exception;

  Iterable<Map.Entry<K, V>> entries() throws Exception;

  Iterable<K> keys() throws Exception;

  Iterable<V> values() throws Exception;

  boolean isEmpty() throws Exception;
}
