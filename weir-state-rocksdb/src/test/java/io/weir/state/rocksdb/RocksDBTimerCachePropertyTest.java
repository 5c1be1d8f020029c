package io.weir.state.rocksdb;

import static org.assertj.core.api.Assertions.assertThat;

import io.weir.api.config.Configuration;
import io.weir.api.typeutils.Types;
import io.weir.runtime.checkpoint.KeyedStateHandle;
import io.weir.runtime.state.KeyedStateBackend;
import io.weir.runtime.state.TimerQueue;
import io.weir.runtime.storage.CheckpointStorage;
import io.weir.runtime.storage.FileSystemCheckpointStorage;
import io.weir.runtime.time.InternalTimerService;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.TreeSet;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * The heap cache in front of RocksDB's timers ({@link RocksDBTimerQueue}) against a plain sorted
 * set: with caches of one to three timers per key group and up to thirty timers per key group, so
 * that caches overflow, run dry and reload from RocksDB all the time. After every step the queue is
 * checkpointed and restored into a fresh backend (the cache rebuilt from what RocksDB holds): by
 * incremental and native full checkpoints, and by canonical checkpoints alternating with the heap
 * backend, so that timers written by the cache restore into the heap and back.
 */
class RocksDBTimerCachePropertyTest {

  record Op(String name, long timestamp, long key) {}

  /** A timer of the model: by timestamp, then key (the queue's order within a key group). */
  record Timer(long timestamp, long key) {}

  private static final Comparator<Timer> ORDER =
      Comparator.comparingLong(Timer::timestamp).thenComparingLong(Timer::key);

  @Provide
  Arbitrary<List<Op>> operations() {
    Arbitrary<Op> op =
        Combinators.combine(
                Arbitraries.of("add", "add", "add", "remove", "fire", "peek", "checkpoint"),
                Arbitraries.longs().between(-3, 30),
                Arbitraries.longs().between(0, 5))
            .as(Op::new);
    return op.list().ofMinSize(1).ofMaxSize(80);
  }

  @Provide
  Arbitrary<Integer> cacheSizes() {
    return Arbitraries.integers().between(1, 3);
  }

  /** The cache over long runs: restores only at the script's checkpoints. */
  @Property(tries = 40)
  void restoresAtCheckpointSteps(
      @ForAll("operations") List<Op> ops, @ForAll("cacheSizes") int cacheSize) throws Exception {
    run(ops, cacheSize, List.of("rocksdb-incremental"), false);
  }

  @Property(tries = 25)
  void incrementalRestoreAtEveryStep(
      @ForAll("operations") List<Op> ops, @ForAll("cacheSizes") int cacheSize) throws Exception {
    run(ops, cacheSize, List.of("rocksdb-incremental"), true);
  }

  @Property(tries = 25)
  void nativeFullRestoreAtEveryStep(
      @ForAll("operations") List<Op> ops, @ForAll("cacheSizes") int cacheSize) throws Exception {
    run(ops, cacheSize, List.of("rocksdb-full"), true);
  }

  @Property(tries = 25)
  void restoresIntoTheHeapBackendAndBack(
      @ForAll("operations") List<Op> ops, @ForAll("cacheSizes") int cacheSize) throws Exception {
    run(ops, cacheSize, List.of("rocksdb-canonical", "hashmap"), true);
  }

  /**
   * Applies {@code ops} to the model and to the backend, restored after every step or at the
   * script's checkpoints; each restore takes the next of {@code modes}.
   */
  private void run(List<Op> ops, int cacheSize, List<String> modes, boolean everyStep)
      throws Exception {
    Path dir = Files.createTempDirectory("weir-timer-cache");
    CheckpointStorage storage =
        new FileSystemCheckpointStorage(dir.resolve("checkpoints").toUri(), "0".repeat(32), 64);
    TreeSet<Timer> model = new TreeSet<>(ORDER);
    KeyedStateBackend<Long> backend = open(modes.get(0), cacheSize, dir, null);
    TimerQueue<Long> timers = backend.getTimerQueue(InternalTimerService.EVENT_TIMERS);
    long checkpointId = 0;
    try {
      for (Op op : ops) {
        String what = op + " in " + ops + " (cache " + cacheSize + ", " + modes + ")";
        backend.setCurrentKey(op.key());
        Timer timer = new Timer(op.timestamp(), op.key());
        switch (op.name()) {
          case "add" ->
              assertThat(timers.add(op.timestamp(), op.key())).as(what).isEqualTo(model.add(timer));
          case "remove" ->
              assertThat(timers.remove(op.timestamp(), op.key()))
                  .as(what)
                  .isEqualTo(model.remove(timer));
          case "fire" -> {
            List<Timer> fired = new ArrayList<>();
            while (timers.peekTimestamp() <= op.timestamp()) {
              TimerQueue.Timer<Long> t = timers.poll();
              fired.add(new Timer(t.timestamp(), t.key()));
            }
            List<Timer> expected = new ArrayList<>();
            while (!model.isEmpty() && model.first().timestamp() <= op.timestamp()) {
              expected.add(model.pollFirst());
            }
            // In timestamp order; keys of one timestamp come in key-group order.
            assertThat(fired).as(what).extracting(Timer::timestamp).isSorted();
            fired.sort(ORDER);
            assertThat(fired).as(what).isEqualTo(expected);
          }
          case "peek", "checkpoint" -> {}
          default -> throw new IllegalArgumentException(op.name());
        }
        assertThat(timers.peekTimestamp())
            .as(what)
            .isEqualTo(model.isEmpty() ? Long.MAX_VALUE : model.first().timestamp());
        if (!everyStep && !op.name().equals("checkpoint")) {
          continue;
        }
        checkpointId++;
        KeyedStateHandle handle = TestBackends.checkpoint(backend, checkpointId, storage);
        backend.notifyCheckpointComplete(checkpointId);
        backend.close();
        backend =
            open(
                modes.get((int) (checkpointId % modes.size())),
                cacheSize,
                dir,
                TestBackends.restored(
                    checkpointId, handle == null ? List.of() : List.of(handle), storage));
        timers = backend.getTimerQueue(InternalTimerService.EVENT_TIMERS);
      }
    } finally {
      backend.close();
      RocksDBKeyedStateBackend.deleteQuietly(dir);
    }
  }

  private static KeyedStateBackend<Long> open(
      String mode,
      int cacheSize,
      Path dir,
      io.weir.runtime.checkpoint.RestoredOperatorState restored)
      throws Exception {
    Configuration conf = TestBackends.configuration(mode, dir.resolve("local"));
    conf.set(RocksDBOptions.TIMER_CACHE_SIZE, cacheSize);
    return TestBackends.create(conf, Types.LONG.createSerializer(), 0, 1, restored);
  }
}
