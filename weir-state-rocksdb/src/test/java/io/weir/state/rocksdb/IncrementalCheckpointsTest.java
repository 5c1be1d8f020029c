package io.weir.state.rocksdb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.weir.api.CheckpointStatistics;
import io.weir.api.ExternalizedCheckpointRetention;
import io.weir.api.JobClient;
import io.weir.api.RestartStrategy;
import io.weir.api.StreamEnvironment;
import io.weir.api.functions.CheckpointedFunction;
import io.weir.api.functions.Collector;
import io.weir.api.functions.KeyedProcessFunction;
import io.weir.api.functions.OpenContext;
import io.weir.api.sink.DiscardingSink;
import io.weir.api.state.FunctionInitializationContext;
import io.weir.api.state.FunctionSnapshotContext;
import io.weir.api.state.ValueState;
import io.weir.api.state.ValueStateDescriptor;
import io.weir.api.typeutils.Types;
import io.weir.runtime.api.UnboundedSource;
import io.weir.runtime.checkpoint.CheckpointCoordinator;
import io.weir.runtime.checkpoint.IncrementalKeyedStateHandle;
import io.weir.runtime.checkpoint.OperatorState;
import io.weir.runtime.checkpoint.OperatorSubtaskState;
import io.weir.runtime.checkpoint.RestoredOperatorState;
import io.weir.runtime.jobmaster.JobMaster;
import io.weir.runtime.state.KeyedStateBackend;
import io.weir.runtime.storage.CompletedCheckpointLocation;
import io.weir.runtime.storage.RetainedCheckpoint;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Incremental checkpoints of a running job on RocksDB, with real files: the shared-state registry
 * deletes exactly the SST files no retained checkpoint uses, every retained checkpoint restores on
 * its own, and a corrupt SST file makes the restart fall back to an older checkpoint.
 */
class IncrementalCheckpointsTest {

  static final int KEYS = 300;
  static final Duration WAIT = Duration.ofSeconds(120);

  static final AtomicBoolean FAIL = new AtomicBoolean();
  static final AtomicLong PROCESSED = new AtomicLong();
  static final List<Long> RESTORED_FROM = new CopyOnWriteArrayList<>();

  @TempDir Path dir;

  /** Counts per key; throws once when {@link #FAIL} is armed; records what it restored from. */
  static final class Counter extends KeyedProcessFunction<Long, Long, Long>
      implements CheckpointedFunction {
    private static final long serialVersionUID = 1L;
    private transient ValueState<Long> count;

    @Override
    public void open(OpenContext openContext) {
      count = getRuntimeContext().getState(new ValueStateDescriptor<>("count", Types.LONG));
    }

    @Override
    public void processElement(Long value, Context ctx, Collector<Long> out) throws Exception {
      if (FAIL.compareAndSet(true, false)) {
        throw new IllegalStateException("injected failure");
      }
      Long c = count.value();
      count.update(c == null ? 1 : c + 1);
      PROCESSED.incrementAndGet();
    }

    @Override
    public void snapshotState(FunctionSnapshotContext context) {}

    @Override
    public void initializeState(FunctionInitializationContext context) {
      context.getRestoredCheckpointId().ifPresent(RESTORED_FROM::add);
    }
  }

  private JobClient start(Duration interval) throws Exception {
    return start(interval, 5);
  }

  private JobClient start(Duration interval, int restartAttempts) throws Exception {
    return start(interval, restartAttempts, UnboundedSource.endless(0), 3);
  }

  private JobClient start(
      Duration interval, int restartAttempts, UnboundedSource source, int retained)
      throws Exception {
    FAIL.set(false);
    RESTORED_FROM.clear();
    PROCESSED.set(0);
    StreamEnvironment env = StreamEnvironment.create();
    env.setParallelism(2);
    env.setStateBackend(
        new EmbeddedRocksDBStateBackend(true).setDbStoragePaths(dir.resolve("local").toString()));
    env.enableCheckpointing(interval);
    env.getCheckpointConfig()
        .setCheckpointStorage(dir.resolve("checkpoints").toUri().toString())
        .setNumRetainedCheckpoints(retained)
        .setExternalizedCheckpointRetention(ExternalizedCheckpointRetention.RETAIN_ON_CANCELLATION);
    env.setRestartStrategy(RestartStrategy.fixedDelay(restartAttempts, Duration.ZERO));
    env.fromSource(source, "numbers", Types.LONG)
        .uid("numbers")
        .keyBy(v -> v % KEYS, Types.LONG)
        .process(new Counter())
        .uid("counter")
        .name("counter")
        .sinkTo(new DiscardingSink<>());
    return env.executeAsync("incremental");
  }

  private static List<Long> completed(JobClient client) {
    return client.getCheckpointStatistics().stream()
        .filter(s -> s.status() == CheckpointStatistics.Status.COMPLETED)
        .map(CheckpointStatistics::checkpointId)
        .toList();
  }

  private Path jobDir() throws IOException {
    try (Stream<Path> dirs = Files.list(dir.resolve("checkpoints"))) {
      return dirs.findFirst().orElseThrow();
    }
  }

  @Test
  void afterFiftyCheckpointsAndARestoreOnlyReferencedFilesRemainAndEachRetainedOneRestores()
      throws Exception {
    JobClient client = start(Duration.ofMillis(10));
    await().atMost(WAIT).until(() -> completed(client).size() >= 50);
    long beforeFailure = completed(client).get(completed(client).size() - 1);
    FAIL.set(true);
    await().atMost(WAIT).until(() -> !RESTORED_FROM.isEmpty());
    await()
        .atMost(WAIT)
        .until(() -> completed(client).stream().filter(id -> id > beforeFailure + 5).count() > 0);
    assertThat(RESTORED_FROM).allMatch(id -> id >= beforeFailure);
    client.cancel().get();

    Path jobDir = jobDir();
    List<RetainedCheckpoint> retained = new ArrayList<>();
    try (Stream<Path> chks = Files.list(jobDir)) {
      for (Path chk : chks.filter(p -> p.getFileName().toString().startsWith("chk-")).toList()) {
        retained.add(CompletedCheckpointLocation.load(chk.toString(), null));
      }
    }
    assertThat(retained).hasSize(3);

    Set<String> referenced = new HashSet<>();
    for (RetainedCheckpoint r : retained) {
      for (IncrementalKeyedStateHandle h : counterHandles(r)) {
        h.sharedFiles().forEach(f -> referenced.add(fileName(f)));
      }
    }
    Set<String> inShared = new HashSet<>();
    try (Stream<Path> files = Files.list(jobDir.resolve("shared"))) {
      files.forEach(f -> inShared.add(f.getFileName().toString()));
    }
    assertThat(inShared).as("files in shared/").isEqualTo(referenced);

    // Each retained checkpoint restores on its own, and counts only grow from one to the next.
    retained.sort(
        (a, b) -> Long.compare(a.checkpoint().checkpointId(), b.checkpoint().checkpointId()));
    Map<Long, Long> previous = null;
    for (RetainedCheckpoint r : retained) {
      Map<Long, Long> counts = counts(r);
      assertThat(counts).as("keys of checkpoint %s", r.checkpoint().checkpointId()).hasSize(KEYS);
      if (previous != null) {
        for (Map.Entry<Long, Long> e : counts.entrySet()) {
          assertThat(e.getValue()).isGreaterThanOrEqualTo(previous.get(e.getKey()));
        }
      }
      previous = counts;
    }
  }

  @Test
  void aCorruptSstFileMakesTheRestartFallBackToAnOlderCheckpoint() throws Exception {
    // One restart attempt, spent by the injected failure: falling back from the corrupt newest
    // checkpoint must not cost another, or the job would fail instead.
    JobClient client = start(Duration.ofMillis(200), 1);
    await().atMost(WAIT).until(() -> completed(client).size() >= 3);
    Path shared = jobDir().resolve("shared");
    long corrupted = -1;
    List<Path> files = List.of();
    while (files.isEmpty()) {
      List<Long> ids = completed(client);
      corrupted = ids.get(ids.size() - 1);
      String prefix = corrupted + "-";
      try (Stream<Path> list = Files.list(shared)) {
        files = list.filter(f -> f.getFileName().toString().startsWith(prefix)).toList();
      }
      if (files.isEmpty()) {
        long seen = corrupted;
        await().atMost(WAIT).until(() -> completed(client).stream().anyMatch(id -> id > seen));
      }
    }
    for (Path f : files) {
      try (RandomAccessFile file = new RandomAccessFile(f.toFile(), "rw")) {
        long at = file.length() / 2;
        file.seek(at);
        int b = file.read();
        file.seek(at);
        file.write(b ^ 0xff);
      }
    }
    Set<String> corrupt = new HashSet<>();
    files.forEach(f -> corrupt.add(f.getFileName().toString()));
    FAIL.set(true);
    await().atMost(WAIT).until(() -> RESTORED_FROM.size() >= 2);
    long restoredFrom = RESTORED_FROM.get(RESTORED_FROM.size() - 1);
    assertThat(restoredFrom)
        .as("not checkpoint %s, whose files are corrupt", corrupted)
        .isNotEqualTo(corrupted);
    if (restoredFrom > corrupted) {
      // A newer checkpoint may complete between the corruption and the failure: restoring from it
      // is right only if none of the corrupt files is among its own (compaction may have replaced
      // them). Read now, before later checkpoints subsume it.
      Set<String> used = new HashSet<>();
      RetainedCheckpoint r =
          CompletedCheckpointLocation.load(
              jobDir().resolve("chk-" + restoredFrom).toString(), null);
      for (IncrementalKeyedStateHandle h : counterHandles(r)) {
        h.sharedFiles().forEach(f -> used.add(fileName(f)));
      }
      assertThat(used)
          .as(
              "files of checkpoint %s, restored after those of %s were corrupted",
              restoredFrom, corrupted)
          .doesNotContainAnyElementsOf(corrupt);
    }
    long lastCorrupt = corrupted;
    await()
        .atMost(WAIT)
        .until(() -> completed(client).stream().anyMatch(id -> id > lastCorrupt + 1));
    assertThat(client.getJobStatus().get()).isEqualTo(io.weir.api.JobStatus.RUNNING);
    client.cancel().get();
  }

  @Test
  void aFullCheckpointOnRequestUploadsEveryFileAnewAndTheNextIncrementalOneBuildsOnIt()
      throws Exception {
    long perSubtask = 3_000; // 6,000 numbers: every one of the 300 keys counts 20
    JobClient client = start(Duration.ofHours(1), 0, UnboundedSource.emitting(perSubtask, 1), 10);
    CheckpointCoordinator coordinator = ((JobMaster) client).coordinator();
    await().atMost(WAIT).until(() -> PROCESSED.get() >= 1_000);
    long first = checkpointOnRequest(client, coordinator, false);
    await().atMost(WAIT).until(() -> PROCESSED.get() >= 3_000);
    long second = checkpointOnRequest(client, coordinator, false);
    await().atMost(WAIT).until(() -> PROCESSED.get() == 2 * perSubtask);
    long full = checkpointOnRequest(client, coordinator, true);
    long next = checkpointOnRequest(client, coordinator, false);
    client.cancel().get();

    Map<Long, RetainedCheckpoint> retained = new TreeMap<>();
    try (Stream<Path> chks = Files.list(jobDir())) {
      for (Path chk : chks.filter(p -> p.getFileName().toString().startsWith("chk-")).toList()) {
        RetainedCheckpoint r = CompletedCheckpointLocation.load(chk.toString(), null);
        retained.put(r.checkpoint().checkpointId(), r);
      }
    }
    assertThat(retained).containsOnlyKeys(first, second, full, next);
    Set<String> earlierFiles = new HashSet<>();
    Set<String> earlierLineages = new HashSet<>();
    for (long id : List.of(first, second)) {
      for (IncrementalKeyedStateHandle h : counterHandles(retained.get(id))) {
        h.sharedFiles().forEach(f -> earlierFiles.add(fileName(f)));
        earlierLineages.add(h.backendId());
      }
    }
    Set<String> fullFiles = new HashSet<>();
    for (IncrementalKeyedStateHandle h : counterHandles(retained.get(full))) {
      assertThat(h.sharedFiles()).isNotEmpty();
      h.sharedFiles().forEach(f -> fullFiles.add(fileName(f)));
      assertThat(h.backendId()).as("a new lineage").isNotIn(earlierLineages);
    }
    assertThat(fullFiles)
        .as("checkpoint %d refers only to files it uploaded itself", full)
        .allMatch(name -> name.startsWith(full + "-"))
        .doesNotContainAnyElementsOf(earlierFiles);
    // Nothing changed after the full checkpoint (the sources had emitted all): the next one uploads
    // no
    // SST file and refers to the full one's.
    Set<String> nextFiles = new HashSet<>();
    for (IncrementalKeyedStateHandle h : counterHandles(retained.get(next))) {
      h.sharedFiles().forEach(f -> nextFiles.add(fileName(f)));
    }
    assertThat(nextFiles).isEqualTo(fullFiles);
    CheckpointStatistics nextStats = statistics(client, next);
    assertThat(nextStats.checkpointedSizeBytes())
        .as("checkpoint %d uploads only its small files", next)
        .isLessThan(statistics(client, full).checkpointedSizeBytes());

    Map<Long, Long> expected = new TreeMap<>();
    for (long k = 0; k < KEYS; k++) {
      expected.put(k, 2 * perSubtask / KEYS);
    }
    assertThat(counts(retained.get(full))).isEqualTo(expected);
    assertThat(counts(retained.get(next))).isEqualTo(expected);
    Set<String> inShared = new HashSet<>();
    try (Stream<Path> files = Files.list(jobDir().resolve("shared"))) {
      files.forEach(f -> inShared.add(f.getFileName().toString()));
    }
    Set<String> referenced = new HashSet<>(earlierFiles);
    referenced.addAll(fullFiles);
    assertThat(inShared).as("files in shared/").isEqualTo(referenced);
  }

  /** Triggers a checkpoint now, as the REST API does, and waits until it completed; its id. */
  private static long checkpointOnRequest(
      JobClient client, CheckpointCoordinator coordinator, boolean full) {
    long id = coordinator.triggerCheckpointSoon(full);
    await().atMost(WAIT).until(() -> completed(client).contains(id));
    return id;
  }

  private static CheckpointStatistics statistics(JobClient client, long id) {
    return client.getCheckpointStatistics().stream()
        .filter(s -> s.checkpointId() == id)
        .findFirst()
        .orElseThrow();
  }

  private static String fileName(IncrementalKeyedStateHandle.SharedFile f) {
    String path = ((io.weir.runtime.storage.StreamStateHandle.File) f.handle()).relativePath();
    return path.substring(path.lastIndexOf('/') + 1);
  }

  private static List<IncrementalKeyedStateHandle> counterHandles(RetainedCheckpoint r) {
    List<IncrementalKeyedStateHandle> handles = new ArrayList<>();
    for (OperatorState op : r.checkpoint().operators()) {
      if (op.operatorName().equals("counter")) {
        for (OperatorSubtaskState s : op.subtasks()) {
          handles.add((IncrementalKeyedStateHandle) s.keyed());
        }
      }
    }
    assertThat(handles).hasSize(2);
    return handles;
  }

  /** Every key's count in a retained checkpoint, read by backends restored from it alone. */
  private Map<Long, Long> counts(RetainedCheckpoint r) throws Exception {
    Map<Long, Long> counts = new TreeMap<>();
    List<RestoredOperatorState.IncrementalRestore> all = new ArrayList<>();
    for (IncrementalKeyedStateHandle h : counterHandles(r)) {
      all.add(new RestoredOperatorState.IncrementalRestore(h, r.storage(), false));
    }
    long id = r.checkpoint().checkpointId();
    for (int subtask = 0; subtask < 2; subtask++) {
      KeyedStateBackend<Long> backend =
          TestBackends.create(
              TestBackends.configuration("rocksdb-incremental", dir.resolve("verify")),
              Types.LONG.createSerializer(),
              subtask,
              2,
              new RestoredOperatorState(id, List.of(), all, Map.of()));
      try {
        ValueState<Long> count = backend.getState(new ValueStateDescriptor<>("count", Types.LONG));
        for (long k = 0; k < KEYS; k++) {
          if (backend
              .getKeyGroupRange()
              .contains(
                  io.weir.runtime.state.KeyGroupRangeAssignment.assignToKeyGroup(
                      k, TestBackends.MAX_PARALLELISM))) {
            backend.setCurrentKey(k);
            Long c = count.value();
            if (c != null) {
              counts.put(k, c);
            }
          }
        }
      } finally {
        backend.close();
      }
    }
    return counts;
  }
}
