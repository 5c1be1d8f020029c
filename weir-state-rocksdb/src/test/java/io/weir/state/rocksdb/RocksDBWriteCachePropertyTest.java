package io.weir.state.rocksdb;

import static org.assertj.core.api.Assertions.assertThat;

import io.weir.api.config.Configuration;
import io.weir.api.state.AggregatingState;
import io.weir.api.state.AggregatingStateDescriptor;
import io.weir.api.state.ListState;
import io.weir.api.state.ListStateDescriptor;
import io.weir.api.state.MapState;
import io.weir.api.state.MapStateDescriptor;
import io.weir.api.state.ReducingState;
import io.weir.api.state.ReducingStateDescriptor;
import io.weir.api.state.ValueState;
import io.weir.api.state.ValueStateDescriptor;
import io.weir.api.tuple.Tuple2;
import io.weir.api.typeutils.Types;
import io.weir.runtime.checkpoint.CheckpointOptions;
import io.weir.runtime.checkpoint.KeyedStateHandle;
import io.weir.runtime.checkpoint.RestoredOperatorState;
import io.weir.runtime.state.KeyedStateBackend;
import io.weir.runtime.state.KeyedStateSnapshot;
import io.weir.runtime.storage.CheckpointStorage;
import io.weir.runtime.storage.FileSystemCheckpointStorage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * The write cache of value, reducing, aggregating and map state ({@link RocksDBWriteCache}) against
 * two oracles, run side by side on the same random script: the RocksDB backend without the cache
 * (the same checkpoint kind) and the heap backend. Caches of 1, 2 and 7 entries over 8 keys and
 * four cached states evict all the time, as do the entries of a map state until it is first read
 * whole (then it goes past the cache); list state runs alongside (it bypasses the cache).
 *
 * <p>The script checkpoints and goes on (the cache flushed, its entries kept), restarts
 * (checkpoint, close, restore), takes a savepoint and restores it, or fails (close without
 * checkpoint, restore the last checkpoint: what the cache held since must be gone on all three
 * alike). After every restore every key of every state is compared.
 */
class RocksDBWriteCachePropertyTest {

  record Op(String name, int arg) {
    @Override
    public String toString() {
      return name + "(" + arg + ")";
    }
  }

  private static final int KEYS = 8;

  private static final List<String> NAMES =
      List.of(
          "key",
          "key",
          "key",
          "countGet",
          "countIncrement",
          "countIncrement",
          "countClear",
          "countUpdateNull",
          "textGet",
          "textPut",
          "textClear",
          "pairMutateWithoutUpdate",
          "pairPut",
          "reduce",
          "reduceGet",
          "reduceClear",
          "aggregate",
          "aggregateGet",
          "aggregateClear",
          "listAdd",
          "listGet",
          "mapPut",
          "mapPut",
          "mapGet",
          "mapRemove",
          "mapContains",
          "mapEntries",
          "checkpoint",
          "restart",
          "savepoint",
          "fail");

  @Provide
  Arbitrary<List<Op>> operations() {
    Arbitrary<Op> op =
        Combinators.combine(Arbitraries.of(NAMES), Arbitraries.integers().between(0, 9))
            .as(Op::new);
    return op.list().ofMinSize(1).ofMaxSize(150);
  }

  @Provide
  Arbitrary<Integer> cacheSizes() {
    return Arbitraries.of(1, 2, 7);
  }

  /**
   * {@link RocksDBOptions#WRITE_BATCH_SIZE}: a batch written at every write, after a few, or only
   * when the cache is flushed.
   */
  @Provide
  Arbitrary<String> batchSizes() {
    return Arbitraries.of("1b", "40b", "2mb");
  }

  @Property(tries = 60)
  void incrementalCheckpoints(
      @ForAll("operations") List<Op> ops,
      @ForAll("cacheSizes") int cacheSize,
      @ForAll("batchSizes") String batch)
      throws Exception {
    run("rocksdb-incremental", cacheSize, batch, ops);
  }

  @Property(tries = 40)
  void nativeFullCheckpoints(
      @ForAll("operations") List<Op> ops,
      @ForAll("cacheSizes") int cacheSize,
      @ForAll("batchSizes") String batch)
      throws Exception {
    run("rocksdb-full", cacheSize, batch, ops);
  }

  @Property(tries = 40)
  void canonicalFullCheckpoints(
      @ForAll("operations") List<Op> ops,
      @ForAll("cacheSizes") int cacheSize,
      @ForAll("batchSizes") String batch)
      throws Exception {
    run("rocksdb-canonical", cacheSize, batch, ops);
  }

  /** A cache larger than the keys: nothing is evicted, RocksDB sees updates only on flushes. */
  @Property(tries = 30)
  void cacheLargerThanTheState(@ForAll("operations") List<Op> ops) throws Exception {
    run("rocksdb-incremental", 1000, "2mb", ops);
  }

  /** The states of one backend, registered as an operator would. */
  static final class States {
    final KeyedStateBackend<Long> backend;
    final ValueState<Long> count;
    final ValueState<String> text;
    final ValueState<Tuple2<Long, Long>> pair;
    final ReducingState<Long> reducing;
    final AggregatingState<Long, String> aggregating;
    final ListState<Long> list;
    final MapState<Integer, Long> map;

    States(KeyedStateBackend<Long> backend) {
      this.backend = backend;
      count = backend.getState(new ValueStateDescriptor<>("count", Types.LONG, 0L));
      text = backend.getState(new ValueStateDescriptor<>("text", Types.STRING));
      pair =
          backend.getState(new ValueStateDescriptor<>("pair", Types.TUPLE(Types.LONG, Types.LONG)));
      reducing =
          backend.getReducingState(new ReducingStateDescriptor<>("max", Math::max, Types.LONG));
      aggregating =
          backend.getAggregatingState(
              new AggregatingStateDescriptor<>(
                  "sum", new RocksDBAgainstHeapPropertyTest.Describe(), Types.LONG));
      list = backend.getListState(new ListStateDescriptor<>("list", Types.LONG));
      map = backend.getMapState(new MapStateDescriptor<>("map", Types.INT, Types.LONG));
    }
  }

  /** One backend under test and where its last checkpoint is. */
  static final class Subject {
    final String mode;
    final int cacheSize;
    final String writeBatch;
    States states;
    KeyedStateHandle lastCheckpoint;
    long lastCheckpointId;

    Subject(String mode, int cacheSize, String writeBatch) {
      this.mode = mode;
      this.cacheSize = cacheSize;
      this.writeBatch = writeBatch;
    }

    @Override
    public String toString() {
      return mode + " cache " + cacheSize + " write batch " + writeBatch;
    }
  }

  private void run(String mode, int cacheSize, String writeBatch, List<Op> ops) throws Exception {
    Path dir = Files.createTempDirectory("weir-write-cache");
    CheckpointStorage storage =
        new FileSystemCheckpointStorage(dir.resolve("checkpoints").toUri(), "0".repeat(32), 64);
    Subject cached = new Subject(mode, cacheSize, writeBatch);
    Subject uncached = new Subject(mode, 0, writeBatch);
    Subject heap = new Subject("hashmap", 0, writeBatch);
    List<Subject> all = List.of(cached, uncached, heap);
    for (Subject s : all) {
      s.states = new States(open(s, dir, null));
    }
    long checkpointId = 0;
    long key = 0;
    try {
      for (Op op : ops) {
        String what = op + " after " + ops + " (" + cached + ")";
        switch (op.name()) {
          case "checkpoint" -> {
            checkpointId++;
            for (Subject s : all) {
              checkpoint(s, checkpointId, storage);
            }
            continue;
          }
          case "restart" -> {
            checkpointId++;
            for (Subject s : all) {
              checkpoint(s, checkpointId, storage);
              restore(s, dir, storage, s.lastCheckpoint, checkpointId);
            }
            compareEverything(all, what);
            continue;
          }
          case "savepoint" -> {
            checkpointId++;
            for (Subject s : all) {
              KeyedStateSnapshot snapshot =
                  s.states.backend.snapshot(
                      checkpointId, CheckpointOptions.savepoint(CheckpointOptions.Type.SAVEPOINT));
              KeyedStateHandle handle =
                  snapshot == null ? null : snapshot.persist(checkpointId, storage, "'op'");
              restore(s, dir, storage, handle, checkpointId);
            }
            compareEverything(all, what);
            continue;
          }
          case "fail" -> {
            for (Subject s : all) {
              restore(s, dir, storage, s.lastCheckpoint, s.lastCheckpointId);
            }
            compareEverything(all, what);
            continue;
          }
          case "key" -> key = op.arg() % KEYS;
          default -> {}
        }
        List<Object> seen = new ArrayList<>();
        for (Subject s : all) {
          s.states.backend.setCurrentKey(key);
          boolean withHeap = s != heap || !op.name().equals("pairMutateWithoutUpdate");
          seen.add(withHeap ? apply(s.states, op) : seen.get(0));
        }
        assertThat(seen.get(0)).as("cached vs uncached: %s", what).isEqualTo(seen.get(1));
        assertThat(seen.get(0)).as("cached vs heap: %s", what).isEqualTo(seen.get(2));
      }
      compareEverything(all, "the end of " + ops + " (" + cached + ")");
    } finally {
      for (Subject s : all) {
        s.states.backend.close();
      }
      RocksDBKeyedStateBackend.deleteQuietly(dir);
    }
  }

  private static KeyedStateBackend<Long> open(Subject s, Path dir, RestoredOperatorState restored)
      throws Exception {
    Configuration conf = TestBackends.configuration(s.mode, dir.resolve("local"));
    conf.set(RocksDBOptions.WRITE_CACHE_SIZE, s.cacheSize);
    conf.setString(RocksDBOptions.WRITE_BATCH_SIZE.key(), s.writeBatch);
    return TestBackends.create(conf, Types.LONG.createSerializer(), 0, 1, restored);
  }

  /** A checkpoint the backend goes on from (its cache flushed, not emptied). */
  private static void checkpoint(Subject s, long id, CheckpointStorage storage) throws Exception {
    s.lastCheckpoint = TestBackends.checkpoint(s.states.backend, id, storage);
    s.lastCheckpointId = id;
    s.states.backend.notifyCheckpointComplete(id);
  }

  /** Closes the backend (whatever it has not checkpointed is lost) and restores {@code handle}. */
  private static void restore(
      Subject s, Path dir, CheckpointStorage storage, KeyedStateHandle handle, long id)
      throws Exception {
    s.states.backend.close();
    s.states =
        new States(
            open(
                s,
                dir,
                handle == null ? null : TestBackends.restored(id, List.of(handle), storage)));
  }

  /** Every key's value in every state, as each backend sees it, must be the same. */
  private static void compareEverything(List<Subject> all, String what) throws Exception {
    List<Map<Long, List<Object>>> dumps = new ArrayList<>();
    for (Subject s : all) {
      Map<Long, List<Object>> dump = new TreeMap<>();
      for (long k = 0; k < KEYS; k++) {
        s.states.backend.setCurrentKey(k);
        List<Long> list = new ArrayList<>();
        s.states.list.get().forEach(list::add);
        dump.put(
            k,
            List.of(
                s.states.count.value(),
                Objects.toString(s.states.text.value()),
                Objects.toString(s.states.pair.value()),
                Objects.toString(s.states.reducing.get()),
                Objects.toString(s.states.aggregating.get()),
                list,
                Objects.toString(s.states.map.get(0)),
                Objects.toString(s.states.map.get(1)),
                Objects.toString(s.states.map.get(2))));
      }
      dumps.add(dump);
    }
    assertThat(dumps.get(0)).as("cached vs uncached after %s", what).isEqualTo(dumps.get(1));
    assertThat(dumps.get(0)).as("cached vs heap after %s", what).isEqualTo(dumps.get(2));
  }

  /** Runs {@code op} on the current key and returns what can be observed of it. */
  private static Object apply(States s, Op op) throws Exception {
    int a = op.arg();
    switch (op.name()) {
      case "key" -> {
        return s.backend.getCurrentKey();
      }
      case "countGet" -> {
        return s.count.value();
      }
      case "countIncrement" -> {
        s.count.update(s.count.value() + a + 1);
        return s.count.value();
      }
      case "countClear" -> s.count.clear();
      case "countUpdateNull" -> s.count.update(null);
      case "textGet" -> {
        return Objects.toString(s.text.value());
      }
      // Values of different lengths: an entry's bytes are replaced, not overwritten in place.
      case "textPut" -> s.text.update("t".repeat(a));
      case "textClear" -> s.text.clear();
      case "pairPut" -> s.pair.update(Tuple2.of((long) a, (long) -a));
      case "pairMutateWithoutUpdate" -> {
        // A value read is a copy: changing it without update() changes nothing (as on RocksDB).
        Tuple2<Long, Long> p = s.pair.value();
        if (p != null) {
          p.f0 = 1000L + a;
        }
        return Objects.toString(s.pair.value());
      }
      case "reduce" -> s.reducing.add((long) a);
      case "reduceGet" -> {
        return Objects.toString(s.reducing.get());
      }
      case "reduceClear" -> s.reducing.clear();
      case "aggregate" -> s.aggregating.add((long) a);
      case "aggregateGet" -> {
        return Objects.toString(s.aggregating.get());
      }
      case "aggregateClear" -> s.aggregating.clear();
      case "listAdd" -> s.list.add((long) a);
      case "listGet" -> {
        List<Long> l = new ArrayList<>();
        s.list.get().forEach(l::add);
        return l;
      }
      case "mapPut" -> s.map.put(a % 3, (long) a);
      case "mapGet" -> {
        return Objects.toString(s.map.get(a % 3));
      }
      case "mapRemove" -> s.map.remove(a % 3);
      case "mapContains" -> {
        return s.map.contains(a % 3);
      }
      case "mapEntries" -> {
        // Read whole: the cache is flushed and the state goes past it from now on.
        java.util.TreeMap<Integer, Long> m = new java.util.TreeMap<>();
        s.map.entries().forEach(e -> m.put(e.getKey(), e.getValue()));
        return m.toString();
      }
      default -> throw new IllegalArgumentException(op.name());
    }
    return "done";
  }
}
