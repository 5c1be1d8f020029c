package io.weir.state.rocksdb;

import static org.assertj.core.api.Assertions.assertThat;

import io.weir.api.config.CheckpointingOptions;
import io.weir.api.config.Configuration;
import io.weir.api.typeutils.Types;
import io.weir.runtime.checkpoint.IncrementalKeyedStateHandle;
import io.weir.runtime.checkpoint.KeyedStateHandle;
import io.weir.runtime.checkpoint.RestoredOperatorState;
import io.weir.runtime.state.KeyGroupRange;
import io.weir.runtime.state.KeyGroupRangeAssignment;
import io.weir.runtime.state.KeyedStateBackend;
import io.weir.runtime.state.TaskLocalStateStore;
import io.weir.runtime.state.TimerQueue;
import io.weir.runtime.storage.CheckpointStateReader;
import io.weir.runtime.storage.CheckpointStorage;
import io.weir.runtime.storage.FileSystemCheckpointStorage;
import io.weir.runtime.storage.StorageReference;
import io.weir.runtime.storage.StreamStateHandle;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Task-local recovery of the RocksDB backend: a restore of the same subtask takes its database from
 * the verified local copy of the checkpoint and reads nothing from the checkpoint storage (a reader
 * that counts its reads says so), the state is the one checkpointed; a local copy that is damaged,
 * stale or of other key groups is never used, and the restore from the storage gives the same
 * state; a completed checkpoint deletes the copies it subsumes.
 */
class RocksDBLocalRecoveryTest {

  static final int KEYS = 400;
  static final String JOB = "0123456789abcdef0123456789abcdef";

  @TempDir Path dir;

  private CheckpointStorage storage;

  @BeforeEach
  void createStorage() throws IOException {
    storage = new FileSystemCheckpointStorage(dir.resolve("checkpoints").toUri(), JOB, 0);
  }

  /** The storage, counting every read of state. */
  static final class CountingReader implements CheckpointStateReader {
    final CheckpointStateReader delegate;
    final AtomicInteger reads = new AtomicInteger();

    CountingReader(CheckpointStateReader delegate) {
      this.delegate = delegate;
    }

    @Override
    public byte[] readState(StreamStateHandle handle) throws IOException {
      reads.incrementAndGet();
      return delegate.readState(handle);
    }

    @Override
    public void readStateToFile(StreamStateHandle handle, Path target) throws IOException {
      reads.incrementAndGet();
      delegate.readStateToFile(handle, target);
    }

    @Override
    public void verifyState(StreamStateHandle handle) throws IOException {
      reads.incrementAndGet();
      delegate.verifyState(handle);
    }

    @Override
    public StorageReference reference() {
      return delegate.reference();
    }
  }

  private Configuration configuration(boolean restoreFromLocal) {
    Configuration conf = TestBackends.configuration("rocksdb-incremental", dir.resolve("db"));
    conf.set(CheckpointingOptions.LOCAL_BACKUP_ENABLED, true);
    conf.set(CheckpointingOptions.LOCAL_RECOVERY, restoreFromLocal);
    conf.set(CheckpointingOptions.LOCAL_BACKUP_DIRECTORIES, dir.resolve("local").toString());
    return conf;
  }

  private KeyedStateBackend<Long> backend(
      Configuration conf,
      int subtask,
      int parallelism,
      RestoredOperatorState restored,
      TaskLocalStateStore store)
      throws Exception {
    return TestBackends.create(
        conf, Types.LONG.createSerializer(), subtask, parallelism, restored, store);
  }

  /** Writes round {@code round} of updates to every key the backend owns. */
  private static void write(KeyedStateBackend<Long> backend, int round) throws Exception {
    RocksDBAgainstHeapPropertyTest.States states =
        new RocksDBAgainstHeapPropertyTest.States(backend);
    for (long k = 0; k < KEYS; k++) {
      if (!owns(backend, k)) {
        continue;
      }
      backend.setCurrentKey(k);
      states.value.update(k * 10 + round);
      states.list.add("r" + round + "k" + k);
      states.map.put(round, "m" + k);
      // The same timer each round (assertState polls them all).
      states.timers.add(k % 50, k);
    }
  }

  /** Checks every owned key holds exactly what rounds 1..{@code rounds} wrote. */
  private static void assertState(KeyedStateBackend<Long> backend, int rounds) throws Exception {
    RocksDBAgainstHeapPropertyTest.States states =
        new RocksDBAgainstHeapPropertyTest.States(backend);
    int owned = 0;
    for (long k = 0; k < KEYS; k++) {
      if (!owns(backend, k)) {
        continue;
      }
      owned++;
      backend.setCurrentKey(k);
      assertThat(states.value.value()).as("value of %s", k).isEqualTo(k * 10 + rounds);
      List<String> list = new ArrayList<>();
      states.list.get().forEach(list::add);
      List<String> expectedList = new ArrayList<>();
      Map<Integer, String> expectedMap = new HashMap<>();
      for (int r = 1; r <= rounds; r++) {
        expectedList.add("r" + r + "k" + k);
        expectedMap.put(r, "m" + k);
      }
      assertThat(list).as("list of %s", k).isEqualTo(expectedList);
      Map<Integer, String> map = new HashMap<>();
      states.map.entries().forEach(e -> map.put(e.getKey(), e.getValue()));
      assertThat(map).as("map of %s", k).isEqualTo(expectedMap);
    }
    int timers = 0;
    TimerQueue.Timer<Long> t;
    while ((t = states.timers.poll()) != null) {
      assertThat(t.timestamp()).isEqualTo(t.key() % 50);
      timers++;
    }
    assertThat(timers).isEqualTo(owned);
  }

  private static boolean owns(KeyedStateBackend<Long> backend, long key) {
    KeyGroupRange range = backend.getKeyGroupRange();
    return range.contains(
        KeyGroupRangeAssignment.assignToKeyGroup(key, TestBackends.MAX_PARALLELISM));
  }

  private static RestoredOperatorState restored(
      long checkpointId, KeyedStateHandle handle, CheckpointStateReader reader) {
    return new RestoredOperatorState(
        checkpointId,
        List.of(),
        List.of(
            new RestoredOperatorState.IncrementalRestore(
                (IncrementalKeyedStateHandle) handle, reader, true)),
        Map.of());
  }

  /**
   * Two checkpoints of one subtask, the first confirmed (so completed) only when {@code
   * confirmFirst}; the second completed. Returns the second's handle.
   */
  private KeyedStateHandle twoCheckpoints(
      Configuration conf, TaskLocalStateStore store, boolean confirmFirst) throws Exception {
    KeyedStateBackend<Long> backend = backend(conf, 0, 1, null, store);
    try {
      write(backend, 1);
      TestBackends.checkpoint(backend, 1, storage);
      if (confirmFirst) {
        backend.notifyCheckpointComplete(1);
        store.confirmCheckpoint(1);
      }
      write(backend, 2);
      KeyedStateHandle second = TestBackends.checkpoint(backend, 2, storage);
      backend.notifyCheckpointComplete(2);
      if (confirmFirst) {
        store.confirmCheckpoint(2);
      }
      return second;
    } finally {
      backend.close();
    }
  }

  @Test
  void aRestoreOfTheSameSubtaskUsesTheLocalCopyReadsNoStorageAndHasTheSameState() throws Exception {
    Configuration conf = configuration(true);
    TaskLocalStateStore store = TaskLocalStateStore.create(conf, JOB, 0, 0);
    KeyedStateHandle second = twoCheckpoints(conf, store, true);
    assertThat(store.checkpoints()).as("the copy of checkpoint 1 is subsumed").containsExactly(2L);

    // Without the local store the same restore reads the storage: the counter can tell.
    CountingReader control = new CountingReader(storage);
    KeyedStateBackend<Long> fromStorage = backend(conf, 0, 1, restored(2, second, control), null);
    try {
      assertState(fromStorage, 2);
    } finally {
      fromStorage.close();
    }
    assertThat(control.reads).hasPositiveValue();

    CountingReader reader = new CountingReader(storage);
    KeyedStateBackend<Long> restored = backend(conf, 0, 1, restored(2, second, reader), store);
    KeyedStateHandle third;
    try {
      assertThat(reader.reads).hasValue(0);
      assertState(restored, 2);
      // The restored database goes on: a third checkpoint, restored locally again.
      write(restored, 3);
      third = TestBackends.checkpoint(restored, 3, storage);
      restored.notifyCheckpointComplete(3);
      store.confirmCheckpoint(3);
    } finally {
      restored.close();
    }
    assertThat(store.checkpoints()).containsExactly(3L);
    CountingReader again = new CountingReader(storage);
    KeyedStateBackend<Long> twice = backend(conf, 0, 1, restored(3, third, again), store);
    try {
      assertThat(again.reads).hasValue(0);
      assertState(twice, 3);
    } finally {
      twice.close();
    }
  }

  /** What is wrong with the local copy of checkpoint 2. */
  enum Damage {
    /** An SST file lost its last byte. */
    TRUNCATED_SST,
    /** An SST file has one byte changed, same size. */
    CHANGED_SST,
    /** The MANIFEST file is gone. */
    MISSING_MANIFEST,
    /** The descriptor, written last, is gone: the copy was never completed. */
    INCOMPLETE,
    /** The copy is that of checkpoint 1, where checkpoint 2's should be. */
    STALE
  }

  @ParameterizedTest
  @EnumSource(Damage.class)
  void aDamagedOrStaleLocalCopyIsNotUsedAndTheRestoreReadsTheStorage(Damage damage)
      throws Exception {
    Configuration conf = configuration(true);
    TaskLocalStateStore store = TaskLocalStateStore.create(conf, JOB, 0, 0);
    KeyedStateHandle second = twoCheckpoints(conf, store, false);
    assertThat(store.checkpoints()).containsExactly(1L, 2L);
    Path copy = store.directory().resolve("chk_2").resolve("op-id");
    switch (damage) {
      case TRUNCATED_SST -> {
        try (RandomAccessFile f = new RandomAccessFile(largestSst(copy).toFile(), "rw")) {
          f.setLength(f.length() - 1);
        }
      }
      case CHANGED_SST -> {
        try (RandomAccessFile f = new RandomAccessFile(largestSst(copy).toFile(), "rw")) {
          long at = f.length() / 2;
          f.seek(at);
          int b = f.read();
          f.seek(at);
          f.write(b ^ 0xff);
        }
      }
      case MISSING_MANIFEST -> {
        try (Stream<Path> files = Files.list(copy)) {
          Files.delete(
              files
                  .filter(p -> p.getFileName().toString().startsWith("MANIFEST"))
                  .findFirst()
                  .orElseThrow());
        }
      }
      case INCOMPLETE -> Files.delete(copy.resolve(RocksDBLocalCopy.DESCRIPTOR_FILE));
      case STALE -> {
        RocksDBKeyedStateBackend.deleteQuietly(copy);
        Files.move(store.directory().resolve("chk_1").resolve("op-id"), copy);
      }
    }

    CountingReader reader = new CountingReader(storage);
    KeyedStateBackend<Long> restored = backend(conf, 0, 1, restored(2, second, reader), store);
    try {
      assertThat(reader.reads).as("the storage was read").hasPositiveValue();
      assertState(restored, 2);
    } finally {
      restored.close();
    }
    assertThat(Files.exists(copy)).as("the unusable copy is deleted").isFalse();
  }

  @Test
  void afterARescaleTheLocalCopyOfOtherKeyGroupsIsNotUsed() throws Exception {
    Configuration conf = configuration(true);
    TaskLocalStateStore store = TaskLocalStateStore.create(conf, JOB, 0, 0);
    KeyedStateHandle second = twoCheckpoints(conf, store, true);
    assertThat(store.checkpoints()).containsExactly(2L);

    // Subtask 0 of 2 owns half the key groups of the old subtask 0 of 1, whose copy is here.
    CountingReader reader = new CountingReader(storage);
    KeyedStateBackend<Long> restored = backend(conf, 0, 2, restored(2, second, reader), store);
    try {
      assertThat(restored.getKeyGroupRange()).isNotEqualTo(second.range());
      assertThat(reader.reads).hasPositiveValue();
      assertState(restored, 2);
    } finally {
      restored.close();
    }
  }

  @Test
  void withLocalBackupButNotRecoveryFromLocalCopiesAreKeptAndNotUsed() throws Exception {
    Configuration conf = configuration(false);
    TaskLocalStateStore store = TaskLocalStateStore.create(conf, JOB, 0, 0);
    KeyedStateHandle second = twoCheckpoints(conf, store, true);
    assertThat(store.checkpoints()).containsExactly(2L);

    CountingReader reader = new CountingReader(storage);
    KeyedStateBackend<Long> restored = backend(conf, 0, 1, restored(2, second, reader), store);
    try {
      assertThat(reader.reads).hasPositiveValue();
      assertState(restored, 2);
    } finally {
      restored.close();
    }
  }

  private static Path largestSst(Path copy) throws IOException {
    try (Stream<Path> files = Files.list(copy)) {
      return files
          .filter(p -> p.getFileName().toString().endsWith(".sst"))
          .max(
              Comparator.comparingLong(
                  p -> {
                    try {
                      return Files.size(p);
                    } catch (IOException e) {
                      throw new java.io.UncheckedIOException(e);
                    }
                  }))
          .orElseThrow();
    }
  }
}
