package io.weir.runtime.state;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.Map;

/** Checks a {@link KeyGroupStore} against the map it should equal, through every way to read it. */
final class KeyGroupStoreAssertions {

  private KeyGroupStoreAssertions() {}

  static <K, V> void assertHolds(KeyGroupStore<K, V> store, Map<K, V> expected) {
    assertThat(store.size()).isEqualTo(expected.size());
    assertThat(store.asMap()).isEqualTo(expected);
    assertThat(store.asMap().entrySet()).hasSize(expected.size());
    Map<K, V> seen = new HashMap<>();
    store.forEach(seen::put);
    assertThat(seen).isEqualTo(expected);
    for (Map.Entry<K, V> e : expected.entrySet()) {
      assertThat(store.get(e.getKey())).isEqualTo(e.getValue());
    }
  }
}
