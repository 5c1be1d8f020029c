package io.weir.state.rocksdb;

import static org.assertj.core.api.Assertions.assertThat;

import io.weir.api.functions.AggregateFunction;
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
import io.weir.api.typeutils.Types;
import io.weir.runtime.checkpoint.KeyedStateHandle;
import io.weir.runtime.state.KeyedStateBackend;
import io.weir.runtime.state.TimerQueue;
import io.weir.runtime.storage.CheckpointStorage;
import io.weir.runtime.storage.FileSystemCheckpointStorage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Every keyed state kind and the timers of the RocksDB backend behave exactly like the heap
 * backend's, over random operation sequences with checkpoints and restores in between: the heap
 * backend is the oracle. Each checkpoint is persisted to real files and both backends are rebuilt
 * from them, so the sequence after it also checks that the restore lost or changed nothing.
 */
class RocksDBAgainstHeapPropertyTest {

  /** One step: what it is, and a number that parameterizes it. */
  record Op(String name, int arg) {
    @Override
    public String toString() {
      return name + "(" + arg + ")";
    }
  }

  private static final List<String> NAMES =
      List.of(
          "key",
          "key",
          "valuePut",
          "valueGet",
          "valueClear",
          "listAdd",
          "listAddAll",
          "listUpdate",
          "listGet",
          "listClear",
          "mapPut",
          "mapPut",
          "mapRemove",
          "mapGet",
          "mapContains",
          "mapEntries",
          "mapIsEmpty",
          "mapClear",
          "reduce",
          "reduceGet",
          "aggregate",
          "aggregateGet",
          "timerAdd",
          "timerAdd",
          "timerRemove",
          "fire",
          "checkpoint");

  @Provide
  Arbitrary<List<Op>> operations() {
    Arbitrary<Op> op =
        Combinators.combine(Arbitraries.of(NAMES), Arbitraries.integers().between(0, 9))
            .as(Op::new);
    return op.list().ofMinSize(1).ofMaxSize(120);
  }

  @Property(tries = 40)
  void fullCheckpoints(@ForAll("operations") List<Op> ops) throws Exception {
    run("rocksdb-full", ops);
  }

  @Property(tries = 40)
  void canonicalFullCheckpoints(@ForAll("operations") List<Op> ops) throws Exception {
    run("rocksdb-canonical", ops);
  }

  @Property(tries = 40)
  void incrementalCheckpoints(@ForAll("operations") List<Op> ops) throws Exception {
    run("rocksdb-incremental", ops);
  }

  /** The states of one backend, registered as an operator would. */
  static final class States {
    final KeyedStateBackend<Long> backend;
    final ValueState<Long> value;
    final ListState<String> list;
    final MapState<Integer, String> map;
    final ReducingState<Long> reducing;
    final AggregatingState<Long, String> aggregating;
    final TimerQueue<Long> timers;

    States(KeyedStateBackend<Long> backend) {
      this.backend = backend;
      value = backend.getState(new ValueStateDescriptor<>("value", Types.LONG));
      list = backend.getListState(new ListStateDescriptor<>("list", Types.STRING));
      map = backend.getMapState(new MapStateDescriptor<>("map", Types.INT, Types.STRING));
      reducing =
          backend.getReducingState(
              new ReducingStateDescriptor<>("reducing", Long::sum, Types.LONG));
      aggregating =
          backend.getAggregatingState(
              new AggregatingStateDescriptor<>("aggregating", new Describe(), Types.LONG));
      timers = backend.getTimerQueue(io.weir.runtime.time.InternalTimerService.EVENT_TIMERS);
    }
  }

  /** Sums, and describes the sum. */
  static final class Describe implements AggregateFunction<Long, Long, String> {
    private static final long serialVersionUID = 1L;

    @Override
    public Long createAccumulator() {
      return 0L;
    }

    @Override
    public Long add(Long value, Long accumulator) {
      return accumulator + value;
    }

    @Override
    public String getResult(Long accumulator) {
      return "sum=" + accumulator;
    }

    @Override
    public Long merge(Long a, Long b) {
      return a + b;
    }
  }

  private void run(String mode, List<Op> ops) throws Exception {
    Path dir = Files.createTempDirectory("weir-rocksdb-oracle");
    CheckpointStorage storage =
        new FileSystemCheckpointStorage(dir.resolve("checkpoints").toUri(), "0".repeat(32), 64);
    States heap = new States(open("hashmap", dir, null));
    States rocks = new States(open(mode, dir, null));
    long checkpointId = 0;
    long key = 0;
    try {
      for (Op op : ops) {
        if (op.name().equals("checkpoint")) {
          checkpointId++;
          heap = restart(heap, "hashmap", dir, storage, checkpointId);
          rocks = restart(rocks, mode, dir, storage, checkpointId);
          continue;
        }
        if (op.name().equals("key")) {
          key = op.arg() % 6;
        }
        heap.backend.setCurrentKey(key);
        rocks.backend.setCurrentKey(key);
        assertThat(apply(rocks, op, key))
            .as("%s after %s", op, ops)
            .isEqualTo(apply(heap, op, key));
      }
    } finally {
      heap.backend.close();
      rocks.backend.close();
      RocksDBKeyedStateBackend.deleteQuietly(dir);
    }
  }

  private static KeyedStateBackend<Long> open(
      String mode, Path dir, io.weir.runtime.checkpoint.RestoredOperatorState restored)
      throws Exception {
    return TestBackends.create(
        TestBackends.configuration(mode, dir.resolve("local")),
        Types.LONG.createSerializer(),
        0,
        1,
        restored);
  }

  /** Checkpoints {@code states}, closes its backend and restores a new one from the files. */
  private static States restart(
      States states, String mode, Path dir, CheckpointStorage storage, long id) throws Exception {
    KeyedStateHandle handle = TestBackends.checkpoint(states.backend, id, storage);
    states.backend.notifyCheckpointComplete(id);
    states.backend.close();
    return new States(
        open(
            mode,
            dir,
            TestBackends.restored(id, handle == null ? List.of() : List.of(handle), storage)));
  }

  /** Runs {@code op} and returns what can be observed of it. */
  private static Object apply(States s, Op op, long key) throws Exception {
    int a = op.arg();
    switch (op.name()) {
      case "key" -> {
        return key;
      }
      case "valuePut" -> s.value.update((long) a);
      case "valueGet" -> {
        return Objects.toString(s.value.value());
      }
      case "valueClear" -> s.value.clear();
      case "listAdd" -> s.list.add("e" + a);
      case "listAddAll" -> s.list.addAll(List.of("x" + a, "y" + a));
      case "listUpdate" -> s.list.update(a % 3 == 0 ? List.of() : List.of("u" + a));
      case "listGet" -> {
        List<String> l = new ArrayList<>();
        s.list.get().forEach(l::add);
        return l;
      }
      case "listClear" -> s.list.clear();
      case "mapPut" -> s.map.put(a % 5, "v" + a);
      case "mapRemove" -> s.map.remove(a % 5);
      case "mapGet" -> {
        return Objects.toString(s.map.get(a % 5));
      }
      case "mapContains" -> {
        return s.map.contains(a % 5);
      }
      case "mapEntries" -> {
        Map<Integer, String> m = new HashMap<>();
        s.map.entries().forEach(e -> m.put(e.getKey(), e.getValue()));
        List<Integer> keys = new ArrayList<>();
        s.map.keys().forEach(keys::add);
        List<String> values = new ArrayList<>();
        s.map.values().forEach(values::add);
        keys.sort(Comparator.naturalOrder());
        values.sort(Comparator.naturalOrder());
        return List.of(m, keys, values);
      }
      case "mapIsEmpty" -> {
        return s.map.isEmpty();
      }
      case "mapClear" -> s.map.clear();
      case "reduce" -> s.reducing.add((long) a);
      case "reduceGet" -> {
        return Objects.toString(s.reducing.get());
      }
      case "aggregate" -> s.aggregating.add((long) a);
      case "aggregateGet" -> {
        return Objects.toString(s.aggregating.get());
      }
      case "timerAdd" -> {
        return s.timers.add(a * 3L - 5, key);
      }
      case "timerRemove" -> {
        return s.timers.remove(a * 3L - 5, key);
      }
      case "fire" -> {
        // Timers due at the same time may fire in any key order: compare them sorted.
        List<String> fired = new ArrayList<>();
        long upTo = a * 3L - 5;
        long last = Long.MIN_VALUE;
        while (s.timers.peekTimestamp() <= upTo) {
          TimerQueue.Timer<Long> t = s.timers.poll();
          assertThat(t.timestamp()).isGreaterThanOrEqualTo(last);
          last = t.timestamp();
          fired.add(t.timestamp() + "@" + t.key());
        }
        fired.sort(Comparator.naturalOrder());
        return List.of(fired, s.timers.peekTimestamp());
      }
      default -> throw new IllegalArgumentException(op.name());
    }
    return "done";
  }
}
