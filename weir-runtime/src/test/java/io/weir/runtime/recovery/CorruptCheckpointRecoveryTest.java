package io.weir.runtime.recovery;

import static io.weir.runtime.recovery.RecoveryTestSupport.WAIT;
import static io.weir.runtime.recovery.RecoveryTestSupport.awaitCoveringCheckpoint;
import static io.weir.runtime.recovery.RecoveryTestSupport.chainMessages;
import static io.weir.runtime.recovery.RecoveryTestSupport.completedIds;
import static io.weir.runtime.recovery.RecoveryTestSupport.copyTree;
import static io.weir.runtime.recovery.RecoveryTestSupport.expectedCounts;
import static io.weir.runtime.recovery.RecoveryTestSupport.finalCounts;
import static io.weir.runtime.recovery.RecoveryTestSupport.firstCounts;
import static io.weir.runtime.recovery.RecoveryTestSupport.flipByte;
import static io.weir.runtime.recovery.RecoveryTestSupport.jobDir;
import static io.weir.runtime.recovery.RecoveryTestSupport.stateFiles;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;
import static org.awaitility.Awaitility.await;

import io.weir.api.DataStream;
import io.weir.api.ExternalizedCheckpointRetention;
import io.weir.api.JobClient;
import io.weir.api.JobExecutionResult;
import io.weir.api.RestartStrategy;
import io.weir.api.StreamEnvironment;
import io.weir.api.config.CheckpointingOptions;
import io.weir.api.typeutils.Types;
import io.weir.runtime.api.CollectSink;
import io.weir.runtime.recovery.RecoveryTestSupport.Count;
import io.weir.runtime.recovery.RecoveryTestSupport.CounterProbe;
import io.weir.runtime.recovery.RecoveryTestSupport.CountingSource;
import io.weir.runtime.recovery.RecoveryTestSupport.KeyedCounter;
import io.weir.runtime.recovery.RecoveryTestSupport.LogCapture;
import io.weir.runtime.recovery.RecoveryTestSupport.OpenTracker;
import io.weir.runtime.testing.matrix.TestMatrix;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Damaged checkpoints: a restore verifies checksums and falls back to the previous retained
 * checkpoint, with a WARN line, instead of restoring damaged state.
 *
 * <p>In-job scenario: a keyed count runs with checkpoints every 20 ms, {@code num-retained: 2} and
 * every state in a file of its own ({@code data-inline-threshold: 0 b}). Once all of a first batch
 * of records is counted and checkpointed, the counter is armed: the next record blocks the task (so
 * no newer checkpoint can complete), the test damages the newest checkpoint, and the task then
 * throws. The restart must skip the damaged checkpoint.
 */
@Timeout(60)
@TestMatrix
class CorruptCheckpointRecoveryTest {

  static final int KEYS = 5;
  static final long FIRST = 200;
  static final long SECOND = 300;
  static final String LOCAL_JOB = "io.weir.runtime.jobmaster";

  @TempDir Path checkpoints;
  @TempDir Path elsewhere;

  /** A running job blocked in its counter, with two retained checkpoints of the first batch. */
  record Blocked(
      JobClient client,
      CountingSource source,
      CounterProbe probe,
      CollectSink<Count> sink,
      Path jobDir,
      long newest,
      long older) {}

  static DataStream<Count> countPipeline(
      StreamEnvironment env, CountingSource source, KeyedCounter counter) {
    return env.fromSource(source, "numbers", Types.LONG)
        .uid("source")
        .keyBy(v -> v % KEYS, Types.LONG)
        .process(counter)
        .uid("counter")
        .name("counter");
  }

  /**
   * Starts the job, counts FIRST records, waits for two checkpoints that cover them, arms the
   * failure, lets more records in, and waits until the counter blocked and the newest checkpoint
   * that can still complete has completed.
   */
  Blocked startAndBlock() throws Exception {
    StreamEnvironment env = StreamEnvironment.create();
    env.setParallelism(1);
    env.setBufferTimeout(Duration.ZERO);
    env.enableCheckpointing(Duration.ofMillis(20));
    env.getCheckpointConfig()
        .setCheckpointStorage(checkpoints.toUri().toString())
        .setNumRetainedCheckpoints(2);
    env.getConfiguration().setString("execution.checkpointing.data-inline-threshold", "0 b");
    env.setRestartStrategy(RestartStrategy.fixedDelay(2, Duration.ZERO));
    CountingSource source = CountingSource.gated(FIRST + SECOND);
    source.control().allow(FIRST);
    CounterProbe probe = new CounterProbe();
    CollectSink<Count> sink = new CollectSink<>();
    countPipeline(env, source, new KeyedCounter(probe)).sinkTo(sink);
    JobClient client = env.executeAsync("corruption");
    Path jobDir = jobDir(checkpoints, client);

    await().atMost(WAIT).until(() -> sink.size() >= FIRST);
    long covering = awaitCoveringCheckpoint(jobDir, source, FIRST);
    await()
        .atMost(WAIT)
        .until(
            () ->
                completedIds(jobDir).stream()
                        .filter(id -> id >= covering && source.control().progress(id) == FIRST)
                        .count()
                    >= 2);

    probe.armFailure();
    source.control().allow(FIRST + SECOND);
    source.control().finish();
    assertThat(probe.blocked.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
    // The counter's task is blocked: no checkpoint after its last snapshot can complete, and
    // that one completes soon.
    long last = probe.lastSnapshot.get();
    await().atMost(WAIT).until(() -> completedIds(jobDir).contains(last));
    TreeSet<Long> ids = completedIds(jobDir);
    assertThat(ids.last()).isEqualTo(last);
    long older = ids.lower(last);
    assertThat(source.control().progress(last)).isEqualTo(FIRST);
    assertThat(source.control().progress(older)).isEqualTo(FIRST);
    return new Blocked(client, source, probe, sink, jobDir, last, older);
  }

  /** The output of the restarted attempt must continue from the counts of the first batch. */
  static void assertRecoveredFromFirstBatch(CollectSink<Count> sink) {
    List<Count> afterRestart = sink.results().stream().filter(c -> c.attempt() == 1).toList();
    Map<Long, Long> continued = new TreeMap<>();
    expectedCounts(FIRST, KEYS).forEach((k, v) -> continued.put(k, v + 1));
    assertThat(afterRestart).hasSize((int) SECOND);
    assertThat(firstCounts(afterRestart))
        .as("the restarted attempt starts from the restored counts")
        .isEqualTo(continued);
    assertThat(finalCounts(sink.results())).isEqualTo(expectedCounts(FIRST + SECOND, KEYS));
  }

  @Test
  void aCorruptStateFileMakesTheRestartFallBackToThePreviousCheckpoint() throws Exception {
    try (LogCapture log = new LogCapture(LOCAL_JOB)) {
      Blocked job = startAndBlock();
      Path newestDir = job.jobDir().resolve("chk-" + job.newest());
      List<Path> files = stateFiles(newestDir);
      assertThat(files).as("state files of checkpoint %s", job.newest()).isNotEmpty();
      for (Path f : files) {
        flipByte(f);
      }
      job.probe().release.countDown();

      JobExecutionResult result =
          job.client().getJobExecutionResult().get(WAIT.toSeconds(), TimeUnit.SECONDS);

      assertThat(result.metrics())
          .containsEntry("job.restarts", 1L)
          .containsEntry("job.lastRestoredCheckpoint", job.older());
      assertRecoveredFromFirstBatch(job.sink());
      assertThat(log.warnings())
          .anySatisfy(
              w ->
                  assertThat(w)
                      .contains("Checkpoint " + job.newest())
                      .contains("corrupt")
                      .contains("falling back"));
    }
  }

  @Test
  void aCorruptNewestMetadataDoesNotHinderTheRestart() throws Exception {
    // Within a running job the coordinator keeps the metadata of its checkpoints in memory, so a
    // damaged _metadata file does not matter to a restart; the state files are intact.
    Blocked job = startAndBlock();
    flipByte(job.jobDir().resolve("chk-" + job.newest()).resolve("_metadata"));
    job.probe().release.countDown();

    JobExecutionResult result =
        job.client().getJobExecutionResult().get(WAIT.toSeconds(), TimeUnit.SECONDS);

    assertThat(result.metrics()).containsEntry("job.restarts", 1L);
    assertThat(result.metrics().get("job.lastRestoredCheckpoint")).isIn(job.newest(), job.older());
    assertRecoveredFromFirstBatch(job.sink());
  }

  @Test
  void whenNoRetainedCheckpointIsIntactTheJobDoesNotSilentlyStartFromScratch() throws Exception {
    Blocked job = startAndBlock();
    for (long id : List.of(job.newest(), job.older())) {
      for (Path f : stateFiles(job.jobDir().resolve("chk-" + id))) {
        flipByte(f);
      }
    }
    job.probe().release.countDown();

    // Restarting with empty state (and the source from its beginning) after checkpoints had
    // completed would replay everything downstream: exactly-once is gone. The job must fail
    // instead, naming the damaged checkpoints.
    try {
      JobExecutionResult result =
          job.client().getJobExecutionResult().get(WAIT.toSeconds(), TimeUnit.SECONDS);
      fail(
          "the job restarted although no retained checkpoint could be restored; it restored"
              + " checkpoint %s and its restarted attempt emitted counts from %s",
          result.metrics().get("job.lastRestoredCheckpoint"),
          firstCounts(job.sink().results().stream().filter(c -> c.attempt() == 1).toList()));
    } catch (ExecutionException e) {
      assertThat(chainMessages(e.getCause())).contains("corrupt");
    }
  }

  // ------------------------------------------------------------------ restore from a path

  /**
   * Runs a job with num-retained 2 until two checkpoints covering FIRST exist; cancels it.
   *
   * @param stateInFiles every state in a file of its own, none inline in the metadata
   */
  Path retainTwo(boolean stateInFiles) throws Exception {
    StreamEnvironment env = StreamEnvironment.create();
    env.setParallelism(1);
    env.setBufferTimeout(Duration.ZERO);
    env.enableCheckpointing(Duration.ofMillis(20));
    env.getCheckpointConfig()
        .setCheckpointStorage(checkpoints.toUri().toString())
        .setNumRetainedCheckpoints(2)
        .setExternalizedCheckpointRetention(ExternalizedCheckpointRetention.RETAIN_ON_CANCELLATION);
    if (stateInFiles) {
      env.getConfiguration().setString("execution.checkpointing.data-inline-threshold", "0 b");
    }
    CountingSource source = CountingSource.unbounded(FIRST);
    CollectSink<Count> sink = new CollectSink<>();
    countPipeline(env, source, new KeyedCounter()).sinkTo(sink);
    JobClient client = env.executeAsync("retain-two");
    Path jobDir = jobDir(checkpoints, client);
    await().atMost(WAIT).until(() -> sink.size() >= FIRST);
    long covering = awaitCoveringCheckpoint(jobDir, source, FIRST);
    await()
        .atMost(WAIT)
        .until(() -> completedIds(jobDir).stream().filter(id -> id > covering).count() >= 1);
    client.cancel().get(30, TimeUnit.SECONDS);
    assertThat(completedIds(jobDir)).hasSize(2);
    return jobDir;
  }

  @Test
  void resumingFromACheckpointWithCorruptMetadataFailsClearlyBeforeAnyTaskStarts()
      throws Exception {
    Path jobDir = retainTwo(false);
    long newest = completedIds(jobDir).last();
    Path metadata = jobDir.resolve("chk-" + newest).resolve("_metadata");
    flipByte(metadata);

    StreamEnvironment env = StreamEnvironment.create();
    env.getConfiguration()
        .set(CheckpointingOptions.SAVEPOINT_PATH, jobDir.resolve("chk-" + newest).toString());
    OpenTracker tracker = new OpenTracker();
    env.fromSource(CountingSource.bounded(FIRST), "numbers", Types.LONG)
        .uid("source")
        .map(tracker)
        .sinkTo(new CollectSink<>());

    assertThatThrownBy(() -> env.execute("resume-corrupt"))
        .hasMessageContaining(CheckpointingOptions.SAVEPOINT_PATH.key())
        .hasMessageContaining("_metadata")
        .hasMessageContaining("corrupt");
    assertThat(tracker.opens()).isZero();
  }

  @Test
  void aJobDirectoryWithCorruptNewestMetadataLeadsToTheOlderIntactCheckpoint() throws Exception {
    // DESIGN.md: "Restore verifies them and falls back to the previous retained checkpoint
    // instead of failing." Given the directory of a job whose newest retained checkpoint has a
    // damaged _metadata, Weir must either resume from the older intact checkpoint (with a WARN)
    // or, if it only takes chk-<n> directories, point the user to the older intact one -- never
    // to the damaged one.
    Path jobDir = retainTwo(false);
    TreeSet<Long> ids = completedIds(jobDir);
    long newest = ids.last();
    long older = ids.first();
    flipByte(jobDir.resolve("chk-" + newest).resolve("_metadata"));
    Path copy = elsewhere.resolve("job");
    copyTree(jobDir, copy);

    try (LogCapture log = new LogCapture(LOCAL_JOB)) {
      StreamEnvironment env = StreamEnvironment.create();
      env.getConfiguration().set(CheckpointingOptions.SAVEPOINT_PATH, copy.toString());
      CollectSink<Count> sink = new CollectSink<>();
      countPipeline(env, CountingSource.bounded(FIRST + 10), new KeyedCounter()).sinkTo(sink);
      JobExecutionResult result;
      try {
        result = env.execute("resume-job-dir");
      } catch (IllegalArgumentException | IllegalStateException e) {
        assertThat(e.getMessage())
            .as("the error points to the older intact checkpoint, not to the damaged one")
            .contains(copy.resolve("chk-" + older).toString())
            .doesNotContain(copy.resolve("chk-" + newest).toString());
        return;
      }
      assertThat(result.metrics()).containsEntry("job.lastRestoredCheckpoint", older);
      assertThat(log.warnings()).anySatisfy(w -> assertThat(w).contains("chk-" + newest));
    }
    assertThat(Files.exists(copy)).isTrue();
  }

  @Test
  void aRestartThatCannotReadTheResumedCheckpointFailsTheJobInsteadOfHanging() throws Exception {
    org.junit.jupiter.api.Assumptions.assumeTrue(
        RecoveryTestSupport.checkpointsAreSelfContained(),
        "an incremental checkpoint refers to shared files of its job directory");
    Path jobDir = retainTwo(true);
    long newest = completedIds(jobDir).last();
    Path resumeFrom = elsewhere.resolve("resume-from");
    copyTree(jobDir.resolve("chk-" + newest), resumeFrom);

    // The resumed job takes no checkpoint of its own before it fails, so its restart must read
    // the checkpoint it resumed from once more, and that one has been damaged meanwhile.
    StreamEnvironment env = StreamEnvironment.create();
    env.setParallelism(1);
    env.setBufferTimeout(Duration.ZERO);
    env.enableCheckpointing(Duration.ofHours(1));
    env.getCheckpointConfig().setCheckpointStorage(checkpoints.toUri().toString());
    env.getConfiguration().setString("execution.checkpointing.data-inline-threshold", "0 b");
    env.getConfiguration().set(CheckpointingOptions.SAVEPOINT_PATH, resumeFrom.toString());
    env.setRestartStrategy(RestartStrategy.fixedDelay(1, Duration.ZERO));
    CounterProbe probe = new CounterProbe();
    probe.armFailure();
    countPipeline(env, CountingSource.bounded(FIRST + 10), new KeyedCounter(probe))
        .sinkTo(new CollectSink<>());
    JobClient client = env.executeAsync("resume-then-fail");
    try {
      assertThat(probe.blocked.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
      List<Path> files = stateFiles(resumeFrom);
      assertThat(files).as("the retained checkpoint has state files").isNotEmpty();
      for (Path f : files) {
        flipByte(f);
      }
      probe.release.countDown();

      await()
          .atMost(Duration.ofSeconds(5))
          .alias("the job ends (here: fails) instead of hanging in RESTARTING")
          .until(() -> client.getJobExecutionResult().isDone());
      assertThatThrownBy(() -> client.getJobExecutionResult().get())
          .isInstanceOf(ExecutionException.class);
    } finally {
      probe.release.countDown();
      var unused = client.cancel(); // do not wait: a hung job never confirms
    }
  }
}
