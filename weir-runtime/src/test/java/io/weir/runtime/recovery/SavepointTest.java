package io.weir.runtime.recovery;

import static io.weir.runtime.recovery.RecoveryTestSupport.WAIT;
import static io.weir.runtime.recovery.RecoveryTestSupport.completedIds;
import static io.weir.runtime.recovery.RecoveryTestSupport.copyTree;
import static io.weir.runtime.recovery.RecoveryTestSupport.deleteTree;
import static io.weir.runtime.recovery.RecoveryTestSupport.expectedCounts;
import static io.weir.runtime.recovery.RecoveryTestSupport.jobDir;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.weir.api.CheckpointStatistics;
import io.weir.api.ExternalizedCheckpointRetention;
import io.weir.api.JobClient;
import io.weir.api.JobStatus;
import io.weir.api.RecoveryClaimMode;
import io.weir.api.RestartStrategy;
import io.weir.api.StreamEnvironment;
import io.weir.api.config.CheckpointingOptions;
import io.weir.api.config.CoreOptions;
import io.weir.api.functions.CheckpointListener;
import io.weir.api.functions.CheckpointedFunction;
import io.weir.api.functions.Collector;
import io.weir.api.functions.KeyedProcessFunction;
import io.weir.api.functions.MapFunction;
import io.weir.api.functions.RichMapFunction;
import io.weir.api.sink.Sink;
import io.weir.api.sink.SinkWriter;
import io.weir.api.sink.WriterInitContext;
import io.weir.api.state.FunctionInitializationContext;
import io.weir.api.state.FunctionSnapshotContext;
import io.weir.api.state.ListState;
import io.weir.api.state.ListStateDescriptor;
import io.weir.api.typeutils.Types;
import io.weir.runtime.api.CollectSink;
import io.weir.runtime.recovery.RecoveryTestSupport.Count;
import io.weir.runtime.recovery.RecoveryTestSupport.CountingSource;
import io.weir.runtime.recovery.RecoveryTestSupport.KeyedCounter;
import io.weir.runtime.storage.CompletedCheckpointLocation;
import io.weir.runtime.testing.matrix.TestMatrix;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Savepoints end to end in local execution: stop with a savepoint and resume to exactly the counts
 * of an uninterrupted run, savepoints while the job goes on, drain, rescaling 2 → 4 → 1 with keyed,
 * list and union state, savepoints moved away from the job's checkpoints, ownership of the restored
 * checkpoint ({@code NO_CLAIM}, {@code CLAIM}), and the checks at submission.
 *
 * <p>Also runs on RocksDB with incremental and with full checkpoints (weir-state-rocksdb's pom): a
 * savepoint must be self-contained there too.
 */
@Timeout(120)
@TestMatrix
class SavepointTest {

  static final int KEYS = 7;

  /** Records per split: large enough that a stop lands while the source is still emitting. */
  static final long LIMIT = 1_000_000;

  @TempDir Path checkpoints;
  @TempDir Path savepoints;
  @TempDir Path elsewhere;

  /**
   * Keeps, per key, the highest count seen, and the number of records: with both exact, nothing was
   * lost and nothing counted twice (each record adds one to its key's count).
   */
  static final class CountSink implements Sink<Count> {
    private static final long serialVersionUID = 1L;
    static final Map<String, Map<Long, Long>> HIGHEST = new ConcurrentHashMap<>();
    static final Map<String, LongAdder> RECORDS = new ConcurrentHashMap<>();
    final String id = UUID.randomUUID().toString();

    CountSink() {
      HIGHEST.put(id, new ConcurrentHashMap<>());
      RECORDS.put(id, new LongAdder());
    }

    @Override
    public SinkWriter<Count> createWriter(WriterInitContext context) {
      Map<Long, Long> highest = HIGHEST.get(id);
      LongAdder records = RECORDS.get(id);
      return (c, ctx) -> {
        highest.merge(c.key(), c.count(), Math::max);
        records.increment();
      };
    }

    long records() {
      return RECORDS.get(id).sum();
    }

    Map<Long, Long> highest() {
      return new TreeMap<>(HIGHEST.get(id));
    }
  }

  /**
   * Operator state in both redistribution modes: list state {@code "counts"} keeps one element per
   * subtask and run (the records it mapped), redistributed round robin; union state {@code "who"}
   * has each subtask's id ({@code run * 100 + subtask}), which every subtask receives on restore.
   */
  static final class OperatorStateSpy extends RichMapFunction<Long, Long>
      implements CheckpointedFunction {
    private static final long serialVersionUID = 1L;

    record Restored(int subtask, List<Long> counts, List<Long> who) {}

    static final Map<String, Queue<Restored>> RESTORED = new ConcurrentHashMap<>();

    private final String id;
    private final int run;
    private transient ListState<Long> counts;
    private transient ListState<Long> who;
    private transient List<Long> carried;
    private transient long mapped;

    OperatorStateSpy(String id, int run) {
      this.id = id;
      this.run = run;
      RESTORED.putIfAbsent(id, new ConcurrentLinkedQueue<>());
    }

    @Override
    public void initializeState(FunctionInitializationContext context) throws Exception {
      counts =
          context
              .getOperatorStateStore()
              .getListState(new ListStateDescriptor<>("counts", Types.LONG));
      who =
          context
              .getOperatorStateStore()
              .getUnionListState(new ListStateDescriptor<>("who", Types.LONG));
      carried = new ArrayList<>();
      counts.get().forEach(carried::add);
      if (context.isRestored()) {
        List<Long> union = new ArrayList<>();
        who.get().forEach(union::add);
        RESTORED
            .get(id)
            .add(
                new Restored(
                    getRuntimeContext().getIndexOfThisSubtask(),
                    List.copyOf(carried),
                    List.copyOf(union)));
      }
    }

    @Override
    public Long map(Long value) {
      mapped++;
      return value;
    }

    @Override
    public void snapshotState(FunctionSnapshotContext context) throws Exception {
      List<Long> list = new ArrayList<>(carried);
      list.add(mapped);
      counts.update(list);
      who.update(List.of((long) run * 100 + getRuntimeContext().getIndexOfThisSubtask()));
    }
  }

  private StreamEnvironment env(int parallelism) {
    StreamEnvironment env = StreamEnvironment.create();
    env.setParallelism(parallelism);
    env.enableCheckpointing(Duration.ofMillis(50));
    env.getCheckpointConfig().setCheckpointStorage(checkpoints.toUri().toString());
    env.getConfiguration().set(CheckpointingOptions.SAVEPOINT_DIRECTORY, savepoints.toString());
    return env;
  }

  private static void countPipeline(
      StreamEnvironment env, CountingSource source, Sink<Count> sink) {
    env.fromSource(source, "numbers", Types.LONG)
        .uid("source")
        .keyBy(v -> v % KEYS, Types.LONG)
        .process(new KeyedCounter())
        .uid("counter")
        .name("counter")
        .sinkTo(sink)
        .uid("sink");
  }

  /** Every file below {@code dir}, relative, with its size. */
  private static Map<String, Long> files(Path dir) throws IOException {
    Map<String, Long> files = new TreeMap<>();
    try (Stream<Path> walk = Files.walk(dir)) {
      for (Path p : walk.filter(Files::isRegularFile).toList()) {
        files.put(dir.relativize(p).toString(), Files.size(p));
      }
    }
    return files;
  }

  @Test
  void stopWithSavepointThenResumeGivesExactlyTheCountsOfAnUninterruptedRun() throws Exception {
    StreamEnvironment first = env(2);
    // Unaligned checkpoints are on: the savepoint must still be aligned.
    first.getCheckpointConfig().enableUnalignedCheckpoints();
    CountSink firstSink = new CountSink();
    countPipeline(first, CountingSource.unbounded(LIMIT), firstSink);
    JobClient client = first.executeAsync("stop-with-savepoint");
    await()
        .atMost(WAIT)
        .pollInterval(Duration.ofMillis(1))
        .until(() -> firstSink.records() >= 10_000);

    String savepoint = client.stopWithSavepoint(null, false).get(60, TimeUnit.SECONDS);

    assertThat(client.getJobStatus().get()).isEqualTo(JobStatus.FINISHED);
    long total = 2 * LIMIT;
    long before = firstSink.records();
    assertThat(before)
        .as("the job stopped while its source was still emitting")
        .isGreaterThan(0)
        .isLessThan(total);
    Path savepointDir = Path.of(java.net.URI.create(savepoint));
    assertThat(savepointDir.getParent()).isEqualTo(savepoints);
    assertThat(savepointDir.getFileName().toString())
        .startsWith("savepoint-" + client.getJobID().value().substring(0, 6) + "-");
    assertThat(savepointDir.resolve("_metadata")).exists();
    CheckpointStatistics stats =
        client.getCheckpointStatistics().stream()
            .filter(s -> savepoint.equals(s.externalPath()))
            .findFirst()
            .orElseThrow();
    assertThat(stats.unaligned()).as("a savepoint is always aligned").isFalse();

    // Self-contained and relocatable: moved elsewhere, with the job's checkpoints gone.
    Path moved = elsewhere.resolve("moved-savepoint");
    copyTree(savepointDir, moved);
    deleteTree(savepointDir);
    deleteTree(checkpoints);

    StreamEnvironment second = env(2);
    second.getConfiguration().set(CheckpointingOptions.SAVEPOINT_PATH, moved.toString());
    CountSink secondSink = new CountSink();
    countPipeline(second, CountingSource.bounded(LIMIT), secondSink);
    second.execute("resumed-from-savepoint");

    assertThat(before + secondSink.records())
        .as("every record counted once over both runs")
        .isEqualTo(total);
    assertThat(secondSink.highest()).isEqualTo(expectedCounts(total, KEYS));
  }

  @Test
  void aSavepointWhileTheJobRunsLeavesItRunningAndIsNeverDeleted() throws Exception {
    StreamEnvironment first = env(2);
    first
        .getCheckpointConfig()
        .setExternalizedCheckpointRetention(ExternalizedCheckpointRetention.DELETE_ON_CANCELLATION);
    first.getConfiguration().set(CheckpointingOptions.MAX_RETAINED_CHECKPOINTS, 1);
    CountingSource source = CountingSource.gated(LIMIT);
    CollectSink<Count> sink = new CollectSink<>();
    countPipeline(first, source, sink);
    JobClient client = first.executeAsync("savepoint-while-running");
    source.control().allow(100);
    await().atMost(WAIT).until(() -> sink.size() >= 200);

    Path explicit = elsewhere.resolve("explicit");
    String savepoint = client.triggerSavepoint(explicit.toString()).get(30, TimeUnit.SECONDS);
    Map<String, Long> savepointFiles = files(Path.of(java.net.URI.create(savepoint)));

    assertThat(client.getJobStatus().get()).isEqualTo(JobStatus.RUNNING);
    source.control().allow(150);
    await().atMost(WAIT).until(() -> sink.size() >= 300);
    long savepointId =
        client.getCheckpointStatistics().stream()
            .filter(s -> savepoint.equals(s.externalPath()))
            .findFirst()
            .orElseThrow()
            .checkpointId();
    Path jobDir = jobDir(checkpoints, client);
    await()
        .atMost(WAIT)
        .until(() -> !completedIds(jobDir).isEmpty() && completedIds(jobDir).first() > savepointId);
    assertThat(jobDir.resolve("chk-" + savepointId))
        .as("the savepoint's state was moved out of the job's checkpoint directory")
        .doesNotExist();
    client.cancel().get(30, TimeUnit.SECONDS);

    assertThat(completedIds(jobDir)).as("the job's checkpoints go on cancel").isEmpty();
    assertThat(files(Path.of(java.net.URI.create(savepoint))))
        .as("neither later checkpoints nor the cancel deleted the savepoint")
        .isEqualTo(savepointFiles);

    StreamEnvironment second = env(2);
    second.getConfiguration().set(CheckpointingOptions.SAVEPOINT_PATH, savepoint);
    CountSink resumed = new CountSink();
    countPipeline(second, CountingSource.bounded(300), resumed);
    second.execute("resumed");
    assertThat(resumed.records()).isEqualTo(2 * 200);
    assertThat(resumed.highest()).isEqualTo(expectedCounts(600, KEYS));
  }

  @Test
  void aSavepointIsWrittenOnlyIntoItsOwnDirectoryNotIntoTheJobsCheckpointDirectory()
      throws Exception {
    StreamEnvironment first = env(2);
    first.enableCheckpointing(Duration.ofHours(1)); // no periodic checkpoint meanwhile
    // Every state in a file of its own, none inline.
    first.getConfiguration().setString("execution.checkpointing.data-inline-threshold", "0 b");
    first.getConfiguration().set(CheckpointingOptions.MAX_RETAINED_CHECKPOINTS, 1);
    CountingSource source = CountingSource.gated(LIMIT);
    CollectSink<Count> sink = new CollectSink<>();
    countPipeline(first, source, sink);
    JobClient client = first.executeAsync("savepoint-in-place");
    source.control().allow(100);
    await().atMost(WAIT).until(() -> sink.size() >= 200);

    String savepoint = client.triggerSavepoint(null).get(30, TimeUnit.SECONDS);

    Path jobDir = jobDir(checkpoints, client);
    assertThat(Files.exists(jobDir) ? files(jobDir) : Map.of())
        .as("no file of the savepoint in the job's chk-<n>, shared/ or taskowned/")
        .isEmpty();
    Path savepointDir = Path.of(java.net.URI.create(savepoint));
    assertThat(files(savepointDir)).containsKey("_metadata").hasSizeGreaterThan(1);
    client.cancel().get(30, TimeUnit.SECONDS);

    StreamEnvironment second = env(2);
    second.getConfiguration().set(CheckpointingOptions.SAVEPOINT_PATH, savepoint);
    CountSink resumed = new CountSink();
    countPipeline(second, CountingSource.bounded(300), resumed);
    second.execute("resumed-in-place");
    assertThat(resumed.highest()).isEqualTo(expectedCounts(600, KEYS));
  }

  /** As {@link #env} but without periodic checkpoints: savepoints only, as Flink allows. */
  private StreamEnvironment envWithoutCheckpointing(int parallelism) {
    StreamEnvironment env = StreamEnvironment.create();
    env.setParallelism(parallelism);
    env.getConfiguration().set(CheckpointingOptions.SAVEPOINT_DIRECTORY, savepoints.toString());
    return env;
  }

  @Test
  void withoutCheckpointingAStopWithSavepointThenResumeGivesExactlyTheCounts() throws Exception {
    StreamEnvironment first = envWithoutCheckpointing(2);
    CountSink firstSink = new CountSink();
    countPipeline(first, CountingSource.unbounded(LIMIT), firstSink);
    JobClient client = first.executeAsync("savepoint-without-checkpointing");
    await()
        .atMost(WAIT)
        .pollInterval(Duration.ofMillis(1))
        .until(() -> firstSink.records() >= 10_000);

    String running = client.triggerSavepoint(null).get(60, TimeUnit.SECONDS);
    assertThat(Path.of(java.net.URI.create(running)).resolve("_metadata")).exists();
    assertThat(client.getJobStatus().get()).isEqualTo(JobStatus.RUNNING);
    String savepoint = client.stopWithSavepoint(null, false).get(60, TimeUnit.SECONDS);

    assertThat(client.getJobStatus().get()).isEqualTo(JobStatus.FINISHED);
    assertThat(client.getCheckpointStatistics())
        .as("no periodic checkpoint ran, only the two savepoints")
        .hasSize(2)
        .allMatch(c -> c.externalPath() != null && c.externalPath().contains("/savepoint-"));
    long total = 2 * LIMIT;
    long before = firstSink.records();
    assertThat(before).isGreaterThan(0).isLessThan(total);

    StreamEnvironment second = envWithoutCheckpointing(2);
    second.getConfiguration().set(CheckpointingOptions.SAVEPOINT_PATH, savepoint);
    CountSink secondSink = new CountSink();
    countPipeline(second, CountingSource.bounded(LIMIT), secondSink);
    second.execute("resumed-without-checkpointing");

    assertThat(before + secondSink.records()).isEqualTo(total);
    assertThat(secondSink.highest()).isEqualTo(expectedCounts(total, KEYS));
  }

  @Test
  void withoutCheckpointingAStopWithDrainEndsTheJobOnceItsSavepointCompleted() throws Exception {
    StreamEnvironment env = envWithoutCheckpointing(2);
    CountSink sink = new CountSink();
    countPipeline(env, CountingSource.unbounded(LIMIT), sink);
    JobClient job = env.executeAsync("drain-without-checkpointing");
    await().atMost(WAIT).pollInterval(Duration.ofMillis(1)).until(() -> sink.records() >= 10_000);

    String savepoint = job.stopWithSavepoint(null, true).get(60, TimeUnit.SECONDS);

    assertThat(Path.of(java.net.URI.create(savepoint)).resolve("_metadata")).exists();
    assertThat(job.getJobStatus().get()).isEqualTo(JobStatus.FINISHED);
    assertThat(job.getJobExecutionResult().get(60, TimeUnit.SECONDS)).isNotNull();
  }

  @Test
  void aDrainRefusedBeforeItsBarriersLeftLeavesTheJobRunning() throws Exception {
    // Without checkpointing a job has no restarts: a failover would fail it for good.
    StreamEnvironment env = envWithoutCheckpointing(2);
    CountSink sink = new CountSink();
    countPipeline(env, CountingSource.unbounded(LIMIT), sink);
    JobClient job = env.executeAsync("drain-refused");
    await().atMost(WAIT).pollInterval(Duration.ofMillis(1)).until(() -> sink.records() >= 10_000);

    assertThatThrownBy(
            () ->
                job.stopWithSavepoint("nosuchscheme://nowhere/savepoints", true)
                    .get(60, TimeUnit.SECONDS))
        .hasMessageContaining("nosuchscheme://nowhere/savepoints cannot be used");

    String savepoint = job.stopWithSavepoint(null, true).get(60, TimeUnit.SECONDS);
    assertThat(Path.of(java.net.URI.create(savepoint)).resolve("_metadata")).exists();
    assertThat(job.getJobStatus().get())
        .as("the refused drain ended no input and failed nothing over")
        .isEqualTo(JobStatus.FINISHED);
  }

  /** Fires an event-time timer per key that only the final watermark of a drain reaches. */
  static final class FlushAtEndOfTime extends KeyedProcessFunction<Long, Long, Count> {
    private static final long serialVersionUID = 1L;

    @Override
    public void processElement(Long value, Context ctx, Collector<Count> out) {
      ctx.timerService().registerEventTimeTimer(1_000_000L);
    }

    @Override
    public void onTimer(long timestamp, OnTimerContext ctx, Collector<Count> out) {
      out.collect(new Count(ctx.getCurrentKey(), -1, 0));
    }
  }

  private JobClient startTimerJob(CollectSink<Count> sink, CountingSource source) throws Exception {
    StreamEnvironment env = env(2);
    env.fromSource(source, "numbers", Types.LONG)
        .uid("source")
        .keyBy(v -> v % KEYS, Types.LONG)
        .process(new FlushAtEndOfTime())
        .uid("timers")
        .sinkTo(sink);
    return env.executeAsync("timers");
  }

  /** True once a checkpoint's source snapshots covered {@code records} records. */
  private static boolean coveredAll(CountingSource source, long records) {
    return source.control().progress.values().stream().anyMatch(a -> a.sum() == records);
  }

  @Test
  void stopWithDrainFiresEventTimeTimersAndStopWithoutDrainDoesNot() throws Exception {
    CountingSource drained = CountingSource.gated(LIMIT);
    CollectSink<Count> drainedSink = new CollectSink<>();
    JobClient drainedJob = startTimerJob(drainedSink, drained);
    CountingSource stopped = CountingSource.gated(LIMIT);
    CollectSink<Count> stoppedSink = new CollectSink<>();
    JobClient stoppedJob = startTimerJob(stoppedSink, stopped);
    drained.control().allow(50);
    stopped.control().allow(50);
    await().atMost(WAIT).until(() -> coveredAll(drained, 100));
    await().atMost(WAIT).until(() -> coveredAll(stopped, 100));

    drainedJob.stopWithSavepoint(null, true).get(60, TimeUnit.SECONDS);
    stoppedJob.stopWithSavepoint(null, false).get(60, TimeUnit.SECONDS);

    assertThat(drainedJob.getJobStatus().get()).isEqualTo(JobStatus.FINISHED);
    assertThat(stoppedJob.getJobStatus().get()).isEqualTo(JobStatus.FINISHED);
    assertThat(drainedSink.results().stream().map(Count::key).collect(Collectors.toSet()))
        .as("drain: the final watermark fired every key's timer")
        .hasSize(KEYS);
    assertThat(stoppedSink.results()).as("without drain no timer fires").isEmpty();
  }

  @Test
  void rescalesTwoToFourToOneThroughSavepoints() throws Exception {
    String spy = UUID.randomUUID().toString();
    // Each split emits 1000 more records per run: gated, so each stop lands at a known place.
    long perRun = 1_000;
    int[] parallelisms = {2, 4, 1};
    long total = 2 * perRun * parallelisms.length;
    long counted = 0;
    String path = null;
    Map<Long, Long> highest = new TreeMap<>();
    for (int run = 0; run < parallelisms.length; run++) {
      StreamEnvironment env = env(parallelisms[run]);
      if (path != null) {
        env.getConfiguration().set(CheckpointingOptions.SAVEPOINT_PATH, path);
      }
      boolean last = run == parallelisms.length - 1;
      CountSink sink = new CountSink();
      long upTo = perRun * (run + 1);
      CountingSource source = last ? CountingSource.bounded(upTo) : CountingSource.gated(LIMIT);
      env.fromSource(source, "numbers", Types.LONG)
          .uid("source")
          .map(new OperatorStateSpy(spy, run))
          .uid("spy")
          .keyBy(v -> v % KEYS, Types.LONG)
          .process(new KeyedCounter())
          .uid("counter")
          .sinkTo(sink)
          .uid("sink");
      if (last) {
        env.execute("rescaled-" + run);
      } else {
        JobClient client = env.executeAsync("rescaled-" + run);
        source.control().allow(upTo);
        await().atMost(WAIT).until(() -> sink.records() == 2 * perRun);
        path = client.stopWithSavepoint(null, false).get(60, TimeUnit.SECONDS);
      }
      assertThat(sink.records()).as("run " + run).isEqualTo(2 * perRun);
      counted += sink.records();
      sink.highest().forEach((k, v) -> highest.merge(k, v, Math::max));
    }
    assertThat(counted).as("every record counted once over three runs").isEqualTo(total);
    assertThat(highest).as("keyed state by key group").isEqualTo(expectedCounts(total, KEYS));

    List<OperatorStateSpy.Restored> restored = new ArrayList<>(OperatorStateSpy.RESTORED.get(spy));
    List<OperatorStateSpy.Restored> atFour =
        restored.stream().filter(r -> r.who().size() == 2).toList();
    List<OperatorStateSpy.Restored> atOne =
        restored.stream().filter(r -> r.who().size() == 4).toList();
    assertThat(atFour).hasSize(4);
    assertThat(atOne).hasSize(1);
    for (OperatorStateSpy.Restored r : atFour) {
      assertThat(r.who()).as("union state reaches every subtask").containsExactlyInAnyOrder(0L, 1L);
      assertThat(r.counts())
          .as("list state round robin: 2 elements over 4 subtasks")
          .hasSizeLessThanOrEqualTo(1);
    }
    assertThat(atFour.stream().mapToInt(r -> r.counts().size()).sum()).isEqualTo(2);
    assertThat(atOne.get(0).who()).containsExactlyInAnyOrder(100L, 101L, 102L, 103L);
    assertThat(atOne.get(0).counts()).as("2 elements of the first run, 4 of the second").hasSize(6);
  }

  @Test
  void noClaimNeverDeletesTheRestoredCheckpointAndClaimDeletesItOnceSubsumed() throws Exception {
    for (RecoveryClaimMode mode : RecoveryClaimMode.values()) {
      Path base = checkpoints.resolve(mode.name());
      StreamEnvironment first = env(2);
      first.getCheckpointConfig().setCheckpointStorage(base.toUri().toString());
      first
          .getCheckpointConfig()
          .setExternalizedCheckpointRetention(
              ExternalizedCheckpointRetention.RETAIN_ON_CANCELLATION);
      CountingSource source = CountingSource.gated(LIMIT);
      CollectSink<Count> sink = new CollectSink<>();
      countPipeline(first, source, sink);
      JobClient client = first.executeAsync("retained-" + mode);
      source.control().allow(100);
      await().atMost(WAIT).until(() -> sink.size() >= 200);
      Path jobDir = jobDir(base, client);
      await().atMost(WAIT).until(() -> source.control().progress(newest(jobDir)) == 200);
      awaitRetained(client, newest(jobDir));
      client.cancel().get(30, TimeUnit.SECONDS);
      Path restored = jobDir.resolve("chk-" + completedIds(jobDir).last());
      Map<String, Long> before = files(jobDir);

      StreamEnvironment second = env(2);
      second
          .getCheckpointConfig()
          .setCheckpointStorage(elsewhere.resolve(mode.name()).toUri().toString());
      second.getConfiguration().set(CheckpointingOptions.SAVEPOINT_PATH, restored.toString());
      second.getConfiguration().set(CheckpointingOptions.RECOVERY_CLAIM_MODE, mode);
      // Retained so that its newest checkpoint can be read once it is cancelled: while it runs,
      // each new checkpoint subsumes (deletes) the one before.
      second
          .getCheckpointConfig()
          .setExternalizedCheckpointRetention(
              ExternalizedCheckpointRetention.RETAIN_ON_CANCELLATION);
      CountingSource resumedSource = CountingSource.gated(LIMIT);
      CountSink resumed = new CountSink();
      countPipeline(second, resumedSource, resumed);
      JobClient resumedJob = second.executeAsync("resumed-" + mode);
      resumedSource.control().allow(150);
      Path resumedJobDir = jobDir(elsewhere.resolve(mode.name()), resumedJob);
      await()
          .atMost(WAIT)
          .until(() -> resumedSource.control().progress(newest(resumedJobDir)) == 300);
      awaitRetained(resumedJob, newest(resumedJobDir));
      if (mode == RecoveryClaimMode.CLAIM) {
        await().atMost(WAIT).until(() -> !Files.exists(restored));
      } else {
        assertThat(files(jobDir)).as("NO_CLAIM never deletes a restored file").isEqualTo(before);
      }
      resumedJob.cancel().get(30, TimeUnit.SECONDS);
      // The resumed job's checkpoint refers to no file of the restored one (its first checkpoint
      // is full, also with incremental RocksDB): it loads from the new job's directory alone.
      Path own = resumedJobDir.resolve("chk-" + newest(resumedJobDir));
      assertThat(CompletedCheckpointLocation.load(own.toString(), null).checkpoint().operators())
          .isNotEmpty();
      assertThat(resumed.highest()).isEqualTo(expectedCounts(300, KEYS));
      if (mode == RecoveryClaimMode.NO_CLAIM) {
        assertThat(files(jobDir)).isEqualTo(before);
      }
    }
  }

  /**
   * Waits until the job's coordinator retained checkpoint {@code id}. Its metadata on disk is not
   * enough: a cancel while the coordinator still commits it discards it ("the job attempt ended
   * while its metadata was written"), and the test would then look for a checkpoint that is gone.
   */
  private static void awaitRetained(JobClient client, long id) {
    await()
        .atMost(WAIT)
        .until(
            () ->
                client.getCheckpointStatistics().stream()
                    .anyMatch(
                        s ->
                            s.checkpointId() == id
                                && s.status() == CheckpointStatistics.Status.COMPLETED));
  }

  /** The newest completed checkpoint in {@code jobDir}, or -1. */
  private static long newest(Path jobDir) {
    TreeSet<Long> ids = completedIds(jobDir);
    return ids.isEmpty() ? -1 : ids.last();
  }

  /** A savepoint of the counting job (stopped), for the submission checks. */
  private String savepointOfTheCountingJob(int parallelism) throws Exception {
    StreamEnvironment env = env(parallelism);
    env.getConfiguration().set(CoreOptions.MAX_PARALLELISM, 8);
    return savepointAfterTenPerSubtask(env, parallelism, SavepointTest::countPipeline);
  }

  /** How a test builds its counting job on an environment. */
  private interface CountingJob {
    void build(StreamEnvironment env, CountingSource source, Sink<Count> sink);
  }

  /** Runs {@code job} until each source subtask emitted 10 numbers, then stops with a savepoint. */
  private String savepointAfterTenPerSubtask(
      StreamEnvironment env, int parallelism, CountingJob job) throws Exception {
    CountingSource source = CountingSource.gated(LIMIT);
    CollectSink<Count> sink = new CollectSink<>();
    job.build(env, source, sink);
    JobClient client = env.executeAsync("to-savepoint");
    source.control().allow(10);
    await().atMost(WAIT).until(() -> sink.size() >= 10 * parallelism);
    return client.stopWithSavepoint(null, false).get(60, TimeUnit.SECONDS);
  }

  @Test
  void aRemovedOperatorIsRefusedListingItUnlessUnclaimedStateIsIgnored() throws Exception {
    String savepoint = savepointOfTheCountingJob(2);

    StreamEnvironment refused = env(2);
    refused.getConfiguration().set(CoreOptions.MAX_PARALLELISM, 8);
    refused.getConfiguration().set(CheckpointingOptions.SAVEPOINT_PATH, savepoint);
    CollectSink<Long> sink = new CollectSink<>();
    refused
        .fromSource(CountingSource.bounded(20), "numbers", Types.LONG)
        .uid("source")
        .sinkTo(sink);
    assertThatThrownBy(() -> refused.execute("counter-removed"))
        .hasMessageContaining("Savepoint")
        .hasMessageContaining("'counter' (uid counter)")
        .hasMessageContaining("'numbers' (uid source)")
        .hasMessageContaining(CheckpointingOptions.SAVEPOINT_IGNORE_UNCLAIMED_STATE.key());
    assertThat(sink.size()).as("nothing ran").isZero();

    StreamEnvironment allowed = env(2);
    allowed.getConfiguration().set(CoreOptions.MAX_PARALLELISM, 8);
    allowed.getConfiguration().set(CheckpointingOptions.SAVEPOINT_PATH, savepoint);
    allowed.getConfiguration().set(CheckpointingOptions.SAVEPOINT_IGNORE_UNCLAIMED_STATE, true);
    CollectSink<Long> allowedSink = new CollectSink<>();
    allowed
        .fromSource(CountingSource.bounded(20), "numbers", Types.LONG)
        .uid("source")
        .sinkTo(allowedSink);
    allowed.execute("counter-dropped");
    assertThat(new TreeSet<>(allowedSink.results()))
        .as("the source resumed from its offsets in the savepoint")
        .isEqualTo(
            Stream.iterate(20L, v -> v + 1)
                .limit(20)
                .collect(Collectors.toCollection(TreeSet::new)));
  }

  @Test
  void aSavepointOfAnotherJobsTopologyIsRefusedNamingItsOperators() throws Exception {
    String savepoint = savepointOfTheCountingJob(1);
    StreamEnvironment other = env(1);
    other.getConfiguration().set(CoreOptions.MAX_PARALLELISM, 8);
    other.getConfiguration().set(CheckpointingOptions.SAVEPOINT_PATH, savepoint);
    other
        .fromSource(CountingSource.bounded(5), "letters", Types.LONG)
        .uid("letters")
        .keyBy(v -> v, Types.LONG)
        .process(new KeyedCounter())
        .uid("tally")
        .sinkTo(new CollectSink<>());
    assertThatThrownBy(() -> other.execute("other-topology"))
        .hasMessageContaining("'numbers' (uid source)")
        .hasMessageContaining("'counter' (uid counter)")
        .hasMessageContaining("uid tally");
  }

  /** The counting job whose counter has a max parallelism of its own, below the job's. */
  private static void countWithOwnMaxParallelism(
      StreamEnvironment env, CountingSource source, Sink<Count> sink) {
    env.fromSource(source, "numbers", Types.LONG)
        .uid("source")
        .keyBy(v -> v % KEYS, Types.LONG)
        .process(new KeyedCounter())
        .uid("counter")
        .name("counter")
        .setMaxParallelism(4)
        .sinkTo(sink) // chained: its task's max parallelism is the counter's
        .uid("sink");
  }

  @Test
  void aJobWhoseKeyedOperatorHasItsOwnMaxParallelismResumesFromItsSavepoint() throws Exception {
    String savepoint =
        savepointAfterTenPerSubtask(env(2), 2, SavepointTest::countWithOwnMaxParallelism);

    // A resume compared the chained sink's own max parallelism (the job's) with the checkpoint's
    // record of it (its task's, 4) and refused the job.
    StreamEnvironment resumed = env(2);
    resumed.getConfiguration().set(CheckpointingOptions.SAVEPOINT_PATH, savepoint);
    CollectSink<Count> after = new CollectSink<>();
    countWithOwnMaxParallelism(resumed, CountingSource.bounded(20), after);
    resumed.execute("own-max-parallelism-resumed");

    assertThat(after.results()).isNotEmpty();
    assertThat(after.results().stream().mapToLong(Count::count).min().orElseThrow())
        .as("the counts go on from the savepoint's")
        .isGreaterThan(1);
  }

  @Test
  void aChangedMaxParallelismAndAParallelismAboveItAreRefused() throws Exception {
    String savepoint = savepointOfTheCountingJob(2);

    StreamEnvironment changed = env(2);
    changed.getConfiguration().set(CoreOptions.MAX_PARALLELISM, 16);
    changed.getConfiguration().set(CheckpointingOptions.SAVEPOINT_PATH, savepoint);
    countPipeline(changed, CountingSource.bounded(20), new CountSink());
    assertThatThrownBy(() -> changed.execute("max-parallelism-changed"))
        .hasMessageContaining("max parallelism 8")
        .hasMessageContaining("now has 16");

    StreamEnvironment tooWide = env(9);
    tooWide.getConfiguration().set(CoreOptions.MAX_PARALLELISM, 8);
    tooWide.getConfiguration().set(CheckpointingOptions.SAVEPOINT_PATH, savepoint);
    countPipeline(tooWide, CountingSource.bounded(20), new CountSink());
    assertThatThrownBy(() -> tooWide.execute("too-wide"))
        .hasMessageContaining("parallelism 9")
        .hasMessageContaining("max parallelism 8");
  }

  @Test
  void aSavepointPathThatIsMissingOrNoSavepointIsRefusedNamingIt() throws Exception {
    Path missing = savepoints.resolve("savepoint-000000-nothere");
    StreamEnvironment env = env(1);
    env.getConfiguration().set(CheckpointingOptions.SAVEPOINT_PATH, missing.toString());
    countPipeline(env, CountingSource.bounded(5), new CountSink());
    assertThatThrownBy(() -> env.execute("missing"))
        .hasMessageContaining(missing.toString())
        .hasMessageContaining("does not exist");

    Path notASavepoint = Files.createDirectories(elsewhere.resolve("savepoint-123456-abcdef"));
    Files.writeString(notASavepoint.resolve("_metadata"), "not a savepoint");
    StreamEnvironment env2 = env(1);
    env2.getConfiguration().set(CheckpointingOptions.SAVEPOINT_PATH, notASavepoint.toString());
    countPipeline(env2, CountingSource.bounded(5), new CountSink());
    assertThatThrownBy(() -> env2.execute("not-a-savepoint"))
        .hasMessageContaining(notASavepoint.toString());
  }

  @Test
  void statefulOperatorsWithoutAUidAreNamedInAWarningAtSubmission() throws Exception {
    try (RecoveryTestSupport.LogCapture log =
        new RecoveryTestSupport.LogCapture(io.weir.runtime.jobmaster.JobMaster.class.getName())) {
      StreamEnvironment env = env(1);
      env.fromSource(CountingSource.bounded(5), "numbers", Types.LONG)
          .uid("source")
          .keyBy(v -> v % KEYS, Types.LONG)
          .process(new KeyedCounter())
          .name("uid-less counter")
          .sinkTo(new CountSink())
          .uid("sink");
      env.execute("uid-less");
      assertThat(log.warnings())
          .anyMatch(m -> m.contains("'uid-less counter'") && m.contains("has no uid"))
          .noneMatch(m -> m.contains("'numbers'") && m.contains("has no uid"));
    }
  }

  @Test
  void aSavepointWithoutADirectoryNamesTheKey() throws Exception {
    StreamEnvironment env = StreamEnvironment.create();
    env.setParallelism(1);
    env.enableCheckpointing(Duration.ofMillis(50));
    env.getCheckpointConfig().setCheckpointStorage(checkpoints.toUri().toString());
    CountingSource source = CountingSource.gated(LIMIT);
    countPipeline(env, source, new CountSink());
    JobClient client = env.executeAsync("no-savepoint-dir");
    try {
      assertThatThrownBy(() -> client.triggerSavepoint(null).get(30, TimeUnit.SECONDS))
          .isInstanceOf(ExecutionException.class)
          .hasMessageContaining(CheckpointingOptions.SAVEPOINT_DIRECTORY.key());
      assertThat(client.getJobStatus().get()).isEqualTo(JobStatus.RUNNING);
    } finally {
      client.cancel().get(30, TimeUnit.SECONDS);
    }
  }

  @Test
  void aFailedStopWithSavepointLeavesTheJobRunning() throws Exception {
    StreamEnvironment env = env(2);
    CountingSource source = CountingSource.gated(LIMIT);
    CollectSink<Count> sink = new CollectSink<>();
    countPipeline(env, source, sink);
    JobClient client = env.executeAsync("failed-stop");
    source.control().allow(10);
    await().atMost(WAIT).until(() -> sink.size() >= 20);
    // A file where the savepoint directory should be: the savepoint cannot be written.
    Path blocked = Files.writeString(elsewhere.resolve("blocked"), "a file");

    assertThatThrownBy(
            () ->
                client
                    .stopWithSavepoint(blocked.resolve("sub").toString(), false)
                    .get(60, TimeUnit.SECONDS))
        .isInstanceOf(ExecutionException.class)
        .hasMessageContaining("failed")
        .hasMessageContaining("blocked");

    assertThat(client.getJobStatus().get()).isEqualTo(JobStatus.RUNNING);
    source.control().allow(20);
    await("the sources read on").atMost(WAIT).until(() -> sink.size() >= 40);
    client.cancel().get(30, TimeUnit.SECONDS);
    Set<Long> keys = sink.results().stream().map(Count::key).collect(Collectors.toSet());
    assertThat(keys).hasSize(KEYS);
  }

  /** Passes records on; fails its task when told a checkpoint completed, if asked to. */
  static final class FailOnCommit implements MapFunction<Count, Count>, CheckpointListener {
    private static final long serialVersionUID = 1L;
    private final boolean fail;

    FailOnCommit(boolean fail) {
      this.fail = fail;
    }

    @Override
    public Count map(Count value) {
      return value;
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) {
      if (fail) {
        throw new IllegalStateException("the commit of checkpoint " + checkpointId + " failed");
      }
    }
  }

  private static void countPipelineCommitting(
      StreamEnvironment env, CountingSource source, CountSink sink, boolean failOnCommit) {
    env.fromSource(source, "numbers", Types.LONG)
        .uid("source")
        .keyBy(v -> v % KEYS, Types.LONG)
        .process(new KeyedCounter())
        .uid("counter")
        .map(new FailOnCommit(failOnCommit))
        .uid("commit")
        .sinkTo(sink)
        .uid("sink");
  }

  /**
   * Once a stop-with-savepoint completed, its tasks commit the savepoint's side effects; a task
   * that fails before it ended must not make the job restart from an older checkpoint (or from
   * nothing), which would commit those records a second time. The job fails naming the savepoint,
   * as Flink's (FLINK-26783), and a resume from it gives every record once.
   */
  @Test
  void aFailureAfterTheStopsSavepointCompletedEndsTheJobInsteadOfRestartingIt() throws Exception {
    StreamEnvironment first = env(2);
    first.getCheckpointConfig().setCheckpointInterval(Duration.ofHours(1).toMillis());
    first.setRestartStrategy(RestartStrategy.fixedDelay(3, Duration.ZERO));
    CountSink firstSink = new CountSink();
    countPipelineCommitting(first, CountingSource.unbounded(LIMIT), firstSink, true);
    JobClient client = first.executeAsync("fails-after-its-stop");
    await()
        .atMost(WAIT)
        .pollInterval(Duration.ofMillis(1))
        .until(() -> firstSink.records() >= 10_000);

    assertThatThrownBy(() -> client.stopWithSavepoint(null, false).get(60, TimeUnit.SECONDS))
        .isInstanceOf(ExecutionException.class)
        .hasMessageContaining("completed, but then the job failed")
        .rootCause()
        .hasMessageContaining("the commit of checkpoint");
    assertThat(client.getJobStatus().get()).isEqualTo(JobStatus.FAILED);
    Throwable failure =
        client.getJobExecutionResult().handle((result, e) -> e).get(60, TimeUnit.SECONDS);
    assertThat(failure)
        .hasStackTraceContaining("which is complete, but failed before every task had ended")
        .hasStackTraceContaining("resume the job from the savepoint");
    long before = firstSink.records();
    try (Stream<Path> dirs = Files.list(savepoints)) {
      Path savepoint = dirs.filter(d -> Files.exists(d.resolve("_metadata"))).findFirst().get();

      StreamEnvironment second = env(2);
      second.getConfiguration().set(CheckpointingOptions.SAVEPOINT_PATH, savepoint.toString());
      CountSink secondSink = new CountSink();
      countPipelineCommitting(second, CountingSource.bounded(LIMIT), secondSink, false);
      second.execute("resumed-after-the-failed-stop");

      assertThat(before + secondSink.records())
          .as("every record counted once over both runs")
          .isEqualTo(2 * LIMIT);
      assertThat(secondSink.highest()).isEqualTo(expectedCounts(2 * LIMIT, KEYS));
    }
  }
}
