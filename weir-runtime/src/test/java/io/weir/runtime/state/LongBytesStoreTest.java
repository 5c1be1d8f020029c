package io.weir.runtime.state;

import static org.assertj.core.api.Assertions.assertThat;

import io.weir.api.typeutils.DataInputDeserializer;
import io.weir.api.typeutils.DataInputView;
import io.weir.api.typeutils.DataOutputSerializer;
import io.weir.api.typeutils.DataOutputView;
import io.weir.api.typeutils.TypeSerializer;
import io.weir.api.typeutils.TypeSerializerSnapshot;
import io.weir.api.typeutils.Types;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * {@link LongBytesStore} against a {@link HashMap} under random puts (of values the same length as
 * the one they replace, of other lengths, of none and of more than a page), overwrites and removes;
 * its copies, which share its pages, against what they held when copied, while the live store
 * writes over, appends and compacts; and the same through a {@link StateTable}, whose snapshots
 * come and go at random.
 */
class LongBytesStoreTest {

  private static final KeyGroupRange RANGE = KeyGroupRange.of(0, 3);

  @Test
  void behavesAsAHashMapWithValuesOfAnyLength() {
    for (long seed = 0; seed < 20; seed++) {
      Random random = new Random(seed);
      LongBytesStore store = new LongBytesStore();
      Map<Long, byte[]> expected = new HashMap<>();
      for (int op = 0; op < 5_000; op++) {
        step(random, store, expected, 1 + random.nextInt(500));
      }
      assertHolds(store, expected);
    }
  }

  @Test
  void aCopyKeepsWhatItHeldWhileTheLiveStoreWritesOverAppendsAndCompacts() {
    for (long seed = 0; seed < 20; seed++) {
      Random random = new Random(seed);
      LongBytesStore live = new LongBytesStore();
      Map<Long, byte[]> expected = new HashMap<>();
      List<LongBytesStore> frozen = new ArrayList<>();
      List<Map<Long, byte[]>> frozenContent = new ArrayList<>();
      for (int op = 0; op < 20_000; op++) {
        if (random.nextInt(2_000) == 0) {
          // What StateTable does at the first write after a snapshot: the old store is frozen.
          frozen.add(live);
          frozenContent.add(copyOf(expected));
          live = live.copy();
        } else if (random.nextInt(4_000) == 0) {
          // Every snapshot released: the frozen stores are not read any more.
          live.thaw();
          frozen.clear();
          frozenContent.clear();
        }
        step(random, live, expected, 300);
      }
      assertHolds(live, expected);
      for (int i = 0; i < frozen.size(); i++) {
        assertHolds(frozen.get(i), frozenContent.get(i));
      }
    }
  }

  @Test
  void aValueOfTheSameLengthIsWrittenInPlaceUnlessACopySharesIt() {
    LongBytesStore store = new LongBytesStore();
    store.put(1L, bytes(100, 1));
    long used = store.usedBytes();
    store.put(1L, bytes(100, 2));
    assertThat(store.usedBytes()).as("written in place").isEqualTo(used);

    LongBytesStore live = store.copy();
    live.put(1L, bytes(100, 3));
    assertThat(live.usedBytes()).as("appended: the copy's page is shared").isEqualTo(2 * used);
    assertThat(store.get(1L)).isEqualTo(bytes(100, 2));

    live.thaw();
    live.put(1L, bytes(100, 4));
    assertThat(live.usedBytes()).as("in place again").isEqualTo(2 * used);
    assertThat(live.get(1L)).isEqualTo(bytes(100, 4));
  }

  @Test
  void neitherTheWrittenArrayNorTheReadOneIsTheState() {
    LongBytesStore store = new LongBytesStore();
    byte[] written = bytes(10, 7);
    store.put(5L, written);
    written[0] = 99;
    byte[] read = store.get(5L);
    read[1] = 99;
    assertThat(store.get(5L)).isEqualTo(bytes(10, 7));
  }

  @Test
  void deadBytesAreCompactedAwayAndAnEmptiedStoreLetsGoOfItsPages() {
    LongBytesStore store = new LongBytesStore();
    Random random = new Random(3);
    for (int round = 0; round < 50; round++) {
      for (long key = 0; key < 1_000; key++) {
        store.put(key, new byte[50 + random.nextInt(50)]);
      }
    }
    long live = 0;
    for (long key = 0; key < 1_000; key++) {
      live += Integer.BYTES + store.get(key).length;
    }
    assertThat(store.usedBytes()).isLessThanOrEqualTo(2 * live + (32 << 10));
    for (long key = 0; key < 1_000; key++) {
      store.remove(key);
    }
    assertThat(store.size()).isZero();
    assertThat(store.pageCount()).isZero();
  }

  @Test
  void keyGroupsSharingAnArenaEachReadOnlyTheirOwnRegions() {
    PageArena arena = new PageArena();
    Random random = new Random(5);
    List<LongBytesStore> stores = new ArrayList<>();
    List<Map<Long, byte[]>> expected = new ArrayList<>();
    for (int kg = 0; kg < 8; kg++) {
      stores.add(new LongBytesStore(arena));
      expected.add(new HashMap<>());
    }
    for (int op = 0; op < 40_000; op++) {
      int kg = random.nextInt(stores.size());
      step(random, stores.get(kg), expected.get(kg), 200);
    }
    for (int kg = 0; kg < stores.size(); kg++) {
      assertHolds(stores.get(kg), expected.get(kg));
    }
    // Small key groups: their regions lie in shared chunks, not in pages of their own.
    Map<byte[], Set<Integer>> holders = new IdentityHashMap<>();
    for (int kg = 0; kg < stores.size(); kg++) {
      for (int p = 0; p < stores.get(kg).pageCount(); p++) {
        holders.computeIfAbsent(stores.get(kg).pageAt(p), page -> new HashSet<>()).add(kg);
      }
    }
    assertThat(holders.values()).anyMatch(kgs -> kgs.size() >= 2);
  }

  @Test
  void aValueLargerThanAPageGetsOneOfItsOwn() {
    LongBytesStore store = new LongBytesStore();
    store.put(1L, bytes(10, 1));
    store.put(2L, bytes(3 * LongBytesStore.LARGE_PAGE, 2));
    store.put(3L, bytes(10, 3));
    LongBytesStore live = store.copy();
    live.put(3L, bytes(10, 4));
    live.put(4L, bytes(LongBytesStore.SMALL_PAGE - Integer.BYTES, 5));
    assertThat(store.get(2L)).isEqualTo(bytes(3 * LongBytesStore.LARGE_PAGE, 2));
    assertThat(store.get(3L)).isEqualTo(bytes(10, 3));
    assertThat(store.get(4L)).isNull();
    assertThat(live.get(3L)).isEqualTo(bytes(10, 4));
    assertThat(live.get(4L)).isEqualTo(bytes(LongBytesStore.SMALL_PAGE - Integer.BYTES, 5));
  }

  @Test
  void aKeyGroupOfMoreThanAMegabyteGrowsInLargePages() {
    LongBytesStore store = new LongBytesStore();
    Map<Long, byte[]> expected = new HashMap<>();
    for (long key = 0; key < 40_000; key++) {
      byte[] value = bytes(96, (int) key);
      store.put(key, value);
      expected.put(key, value);
    }
    // 3.9 MB: regions of 256 B to 256 KiB doubling, then of 256 KiB up to 1 MiB, all in one chunk
    // of the arena, then two large pages.
    assertThat(store.pageCount()).isEqualTo(3);
    assertHolds(store, expected);
  }

  @Test
  void writesItsEntriesAsTheLongAndByteArraySerializersWouldAndReadsThemBack() throws Exception {
    Random random = new Random(11);
    LongBytesStore store = new LongBytesStore();
    Map<Long, byte[]> expected = new HashMap<>();
    for (int op = 0; op < 3_000; op++) {
      step(random, store, expected, 400);
    }
    @SuppressWarnings("unchecked")
    TypeSerializer<byte[]> values =
        (TypeSerializer<byte[]>) Types.PRIMITIVE_ARRAY(Types.BYTE).createSerializer();
    assertSameBytes(writtenAndReadBack(store, values), expected);
  }

  @Test
  void writesThroughAnyOtherSerializerItIsGiven() throws Exception {
    LongBytesStore store = new LongBytesStore();
    Map<Long, byte[]> expected = new HashMap<>();
    for (long key = 0; key < 100; key++) {
      expected.put(key, bytes((int) key, (int) key));
      store.put(key, bytes((int) key, (int) key));
    }
    assertSameBytes(writtenAndReadBack(store, new ShortLengthBytes()), expected);
  }

  /** What {@link LongBytesStore#writeEntries} wrote, read back by the same serializers. */
  private static Map<Long, byte[]> writtenAndReadBack(
      LongBytesStore store, TypeSerializer<byte[]> values) throws IOException {
    TypeSerializer<Long> keys = Types.LONG.createSerializer();
    DataOutputSerializer out = new DataOutputSerializer(64);
    store.writeEntries(keys, values, out);
    DataInputDeserializer in = new DataInputDeserializer(out.getCopyOfBuffer());
    Map<Long, byte[]> read = new HashMap<>();
    for (int n = in.readInt(); n > 0; n--) {
      read.put(keys.deserialize(in), values.deserialize(in));
    }
    assertThat(in.available()).isZero();
    return read;
  }

  /** A {@code byte[]} serializer of another format: a short length. */
  private static final class ShortLengthBytes extends TypeSerializer<byte[]> {
    @Override
    public boolean isImmutableType() {
      return false;
    }

    @Override
    public TypeSerializer<byte[]> duplicate() {
      return this;
    }

    @Override
    public byte[] copy(byte[] from) {
      return from.clone();
    }

    @Override
    public void serialize(byte[] record, DataOutputView target) throws IOException {
      target.writeShort(record.length);
      target.write(record);
    }

    @Override
    public byte[] deserialize(DataInputView source) throws IOException {
      byte[] b = new byte[source.readShort()];
      source.readFully(b);
      return b;
    }

    @Override
    public TypeSerializerSnapshot<byte[]> snapshotConfiguration() {
      throw new UnsupportedOperationException();
    }

    @Override
    public boolean equals(Object obj) {
      return obj instanceof ShortLengthBytes;
    }

    @Override
    public int hashCode() {
      return 1;
    }
  }

  @Test
  void aTableOfBytesKeepsEverySnapshotAsTakenWhileSnapshotsComeAndGo() {
    for (long seed = 0; seed < 6; seed++) {
      Random random = new Random(seed);
      StateTable<Long, byte[]> table =
          new StateTable<>(RANGE, byte[]::clone, KeyGroupStore.Layout.LONG_KEYS_BYTES_VALUES);
      List<Map<Long, byte[]>> expected = new ArrayList<>();
      for (int kg = 0; kg < RANGE.getNumberOfKeyGroups(); kg++) {
        expected.add(new HashMap<>());
      }
      List<StateTable.Snapshot<Long, byte[]>> snapshots = new ArrayList<>();
      List<List<Map<Long, byte[]>>> taken = new ArrayList<>();
      for (int op = 0; op < 20_000; op++) {
        int choice = random.nextInt(1_000);
        if (choice == 0 && snapshots.size() < 3) {
          snapshots.add(table.snapshot());
          List<Map<Long, byte[]>> content = new ArrayList<>();
          expected.forEach(m -> content.add(copyOf(m)));
          taken.add(content);
        } else if (choice == 1 && !snapshots.isEmpty()) {
          int i = random.nextInt(snapshots.size());
          for (int kg = 0; kg < RANGE.getNumberOfKeyGroups(); kg++) {
            assertSameBytes(snapshots.get(i).keyGroup(kg), taken.get(i).get(kg));
          }
          snapshots.remove(i).release();
          taken.remove(i);
        } else {
          int kg = random.nextInt(RANGE.getNumberOfKeyGroups());
          long key = random.nextInt(200);
          Map<Long, byte[]> content = expected.get(kg);
          if (random.nextInt(10) == 0) {
            table.remove(key, kg);
            content.remove(key);
          } else if (random.nextInt(3) == 0) {
            assertThat(table.get(key, kg)).isEqualTo(content.get(key));
          } else {
            byte[] value = randomValue(random, content.get(key));
            table.put(key, kg, value);
            content.put(key, value.clone());
          }
        }
      }
      for (int i = 0; i < snapshots.size(); i++) {
        for (int kg = 0; kg < RANGE.getNumberOfKeyGroups(); kg++) {
          assertSameBytes(snapshots.get(i).keyGroup(kg), taken.get(i).get(kg));
        }
      }
    }
  }

  /** One random put, overwrite or remove on both. */
  private static void step(
      Random random, LongBytesStore store, Map<Long, byte[]> expected, int keySpace) {
    long key =
        random.nextInt(10) == 0 ? Long.MIN_VALUE + random.nextInt(2) : random.nextInt(keySpace);
    if (random.nextInt(8) == 0) {
      store.remove(key);
      expected.remove(key);
    } else {
      byte[] value = randomValue(random, expected.get(key));
      store.put(key, value);
      expected.put(key, value.clone());
    }
  }

  /** Mostly as long as {@code old}, as a write of a fixed-size record is; else any length. */
  private static byte[] randomValue(Random random, byte[] old) {
    int length;
    int kind = random.nextInt(1_000);
    if (kind < 3) {
      length = LongBytesStore.SMALL_PAGE + random.nextInt(LongBytesStore.SMALL_PAGE);
    } else if (kind < 30) {
      length = 0;
    } else if (old != null && old.length < LongBytesStore.SMALL_PAGE && kind < 630) {
      length = old.length;
    } else {
      length = random.nextInt(300);
    }
    // Filled cheaply: random bytes for every value of up to 64 KiB would take most of the test.
    byte[] value = new byte[length];
    Arrays.fill(value, (byte) random.nextInt());
    for (int i = 0; i < Math.min(length, 8); i++) {
      value[random.nextInt(length)] = (byte) random.nextInt();
    }
    return value;
  }

  private static byte[] bytes(int length, int fill) {
    byte[] b = new byte[length];
    Arrays.fill(b, (byte) fill);
    return b;
  }

  private static Map<Long, byte[]> copyOf(Map<Long, byte[]> m) {
    Map<Long, byte[]> copy = new HashMap<>();
    m.forEach((k, v) -> copy.put(k, v.clone()));
    return copy;
  }

  private static void assertHolds(KeyGroupStore<Long, byte[]> store, Map<Long, byte[]> expected) {
    assertThat(store.size()).isEqualTo(expected.size());
    assertSameBytes(store.asMap(), expected);
    Map<Long, byte[]> seen = new HashMap<>();
    store.forEach(seen::put);
    assertSameBytes(seen, expected);
    for (Map.Entry<Long, byte[]> e : expected.entrySet()) {
      assertThat(store.get(e.getKey())).isEqualTo(e.getValue());
    }
  }

  /** The same keys with the same bytes. */
  private static void assertSameBytes(Map<Long, byte[]> actual, Map<Long, byte[]> expected) {
    assertThat(hex(actual)).isEqualTo(hex(expected));
  }

  private static Map<Long, String> hex(Map<Long, byte[]> m) {
    Map<Long, String> out = new HashMap<>();
    m.forEach((k, v) -> out.put(k, HexFormat.of().formatHex(v)));
    return out;
  }
}
