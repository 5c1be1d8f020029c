package io.weir.runtime.recovery;

import static io.weir.runtime.recovery.RecoveryTestSupport.WAIT;
import static io.weir.runtime.recovery.RecoveryTestSupport.awaitCoveringCheckpoint;
import static io.weir.runtime.recovery.RecoveryTestSupport.completedIds;
import static io.weir.runtime.recovery.RecoveryTestSupport.copyTree;
import static io.weir.runtime.recovery.RecoveryTestSupport.deleteTree;
import static io.weir.runtime.recovery.RecoveryTestSupport.expectedCounts;
import static io.weir.runtime.recovery.RecoveryTestSupport.finalCounts;
import static io.weir.runtime.recovery.RecoveryTestSupport.firstCounts;
import static io.weir.runtime.recovery.RecoveryTestSupport.flipByte;
import static io.weir.runtime.recovery.RecoveryTestSupport.jobDir;
import static org.assertj.core.api.Assertions.assertThat;
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
import io.weir.runtime.testing.matrix.TestMatrix;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A job resumed with {@code execution.state-recovery.path} from a checkpoint retained on cancel
 * continues with the keyed state and the source offsets of that checkpoint: from the original
 * place, from a copy elsewhere, and at another parallelism.
 */
@Timeout(60)
@TestMatrix
class RestoreFromRetainedCheckpointTest {

  static final int KEYS = 7;

  /** Records per split of the first job. */
  static final long FIRST = 300;

  /** Records per split once resumed: the resumed job emits FIRST .. LIMIT - 1 of every split. */
  static final long LIMIT = 400;

  static final int FIRST_PARALLELISM = 2;

  @TempDir Path checkpoints;
  @TempDir Path elsewhere;
  @TempDir Path resumedCheckpoints;

  /** What the first job left behind. */
  record Retained(Path jobDir, long checkpointId, Map<Long, Long> counts, String externalPath) {
    Path checkpointDir() {
      return jobDir.resolve("chk-" + checkpointId);
    }
  }

  static DataStream<Count> countPipeline(StreamEnvironment env, CountingSource source) {
    return env.fromSource(source, "numbers", Types.LONG)
        .uid("source")
        .keyBy(v -> v % KEYS, Types.LONG)
        .process(new KeyedCounter())
        .uid("counter")
        .name("counter");
  }

  /**
   * Counts FIRST records per split at parallelism 2 over an unbounded source, waits until at least
   * two checkpoints completed and one covers every record, and cancels with RETAIN_ON_CANCELLATION.
   */
  static Retained runAndCancel(Path base) throws Exception {
    StreamEnvironment env = StreamEnvironment.create();
    env.setParallelism(FIRST_PARALLELISM);
    env.setBufferTimeout(Duration.ZERO);
    env.enableCheckpointing(Duration.ofMillis(20));
    env.getCheckpointConfig()
        .setCheckpointStorage(base.toUri().toString())
        .setExternalizedCheckpointRetention(ExternalizedCheckpointRetention.RETAIN_ON_CANCELLATION);
    CountingSource source = CountingSource.unbounded(FIRST);
    CollectSink<Count> sink = new CollectSink<>();
    countPipeline(env, source).sinkTo(sink);
    JobClient client = env.executeAsync("count-then-cancel");
    Path jobDir = jobDir(base, client);
    long total = FIRST * FIRST_PARALLELISM;
    await().atMost(WAIT).until(() -> sink.size() >= total);
    awaitCoveringCheckpoint(jobDir, source, total);
    await()
        .atMost(WAIT)
        .until(() -> !completedIds(jobDir).isEmpty() && completedIds(jobDir).last() >= 2);
    client.cancel().get(30, TimeUnit.SECONDS);

    assertThat(sink.size()).isEqualTo((int) total);
    long newest = completedIds(jobDir).last();
    String externalPath =
        client.getCheckpointStatistics().stream()
            .filter(s -> s.checkpointId() == newest)
            .findFirst()
            .orElseThrow()
            .externalPath();
    assertThat(source.control().progress(newest))
        .as("the newest retained checkpoint was taken after every record")
        .isEqualTo(total);
    Map<Long, Long> counts = finalCounts(sink.results());
    assertThat(counts).isEqualTo(expectedCounts(total, KEYS));
    return new Retained(jobDir, newest, counts, externalPath);
  }

  /** Resumes the count from {@code path} over a bounded source that ends at LIMIT per split. */
  JobExecutionResult resume(String path, int parallelism, CollectSink<Count> sink)
      throws Exception {
    return resumed(path, parallelism, sink).execute("resumed-count");
  }

  /** The job {@link #resume} runs. */
  StreamEnvironment resumed(String path, int parallelism, CollectSink<Count> sink) {
    StreamEnvironment env = StreamEnvironment.create();
    env.setParallelism(parallelism);
    env.setBufferTimeout(Duration.ZERO);
    env.enableCheckpointing(Duration.ofMillis(20));
    env.getCheckpointConfig().setCheckpointStorage(resumedCheckpoints.toUri().toString());
    env.getConfiguration().set(CheckpointingOptions.SAVEPOINT_PATH, path);
    countPipeline(env, CountingSource.bounded(LIMIT)).sinkTo(sink);
    return env;
  }

  /** The resumed job starts every key from its checkpointed count and ends at the full count. */
  static void assertContinued(Retained first, JobExecutionResult result, CollectSink<Count> sink) {
    long newRecords = (LIMIT - FIRST) * FIRST_PARALLELISM;
    assertThat(sink.size())
        .as("the source resumed from its checkpointed offsets: only the new records")
        .isEqualTo((int) newRecords);
    Map<Long, Long> continued = new TreeMap<>();
    first.counts().forEach((k, v) -> continued.put(k, v + 1));
    assertThat(firstCounts(sink.results()))
        .as("each key's first count after the restore continues from the checkpoint")
        .isEqualTo(continued);
    assertThat(finalCounts(sink.results()))
        .isEqualTo(expectedCounts(LIMIT * FIRST_PARALLELISM, KEYS));
    assertThat(result.metrics())
        .containsEntry("job.lastRestoredCheckpoint", first.checkpointId())
        .containsEntry("job.restarts", 0L);
    assertThat(result.metrics().get("job.checkpoints.lastId"))
        .as("the resumed job's own checkpoint ids continue after the restored one")
        .isGreaterThan(first.checkpointId());
  }

  /** chk-* directories anywhere below {@code dir}. */
  static List<Path> checkpointDirsBelow(Path dir) throws Exception {
    try (Stream<Path> paths = Files.walk(dir)) {
      return paths
          .filter(p -> Files.isDirectory(p) && p.getFileName().toString().startsWith("chk-"))
          .toList();
    }
  }

  @Test
  void resumesFromARetainedCheckpointAndContinuesTheCounts() throws Exception {
    Retained first = runAndCancel(checkpoints);

    CollectSink<Count> sink = new CollectSink<>();
    JobExecutionResult result = resume(first.checkpointDir().toUri().toString(), 2, sink);

    assertContinued(first, result, sink);
    assertThat(first.checkpointDir().resolve("_metadata"))
        .as("restoring leaves the retained checkpoint as it was")
        .exists();
    assertThat(checkpointDirsBelow(resumedCheckpoints))
        .as("a FINISHED job deletes its own checkpoints")
        .isEmpty();
  }

  @Test
  void aResumedJobThatFailsBeforeItsOwnFirstCheckpointRestartsFromTheResumedOne() throws Exception {
    Retained first = runAndCancel(checkpoints);

    StreamEnvironment env = StreamEnvironment.create();
    env.setParallelism(2);
    env.setBufferTimeout(Duration.ZERO);
    env.enableCheckpointing(Duration.ofHours(1)); // none of its own before the failure
    env.getCheckpointConfig().setCheckpointStorage(resumedCheckpoints.toUri().toString());
    env.getConfiguration()
        .set(CheckpointingOptions.SAVEPOINT_PATH, first.checkpointDir().toUri().toString());
    env.setRestartStrategy(RestartStrategy.fixedDelay(1, Duration.ZERO));
    CounterProbe probe = new CounterProbe();
    probe.armFailure();
    probe.release.countDown(); // fail at once
    CollectSink<Count> sink = new CollectSink<>();
    env.fromSource(CountingSource.bounded(LIMIT), "numbers", Types.LONG)
        .uid("source")
        .keyBy(v -> v % KEYS, Types.LONG)
        .process(new KeyedCounter(probe))
        .uid("counter")
        .name("counter")
        .sinkTo(sink);

    JobExecutionResult result = env.execute("resumed-then-failed");

    assertThat(result.metrics())
        .containsEntry("job.restarts", 1L)
        .containsEntry("job.lastRestoredCheckpoint", first.checkpointId());
    List<Count> restarted = sink.results().stream().filter(c -> c.attempt() == 1).toList();
    Map<Long, Long> continued = new TreeMap<>();
    first.counts().forEach((k, v) -> continued.put(k, v + 1));
    assertThat(restarted).hasSize((int) ((LIMIT - FIRST) * FIRST_PARALLELISM));
    assertThat(firstCounts(restarted)).isEqualTo(continued);
    assertThat(finalCounts(sink.results()))
        .isEqualTo(expectedCounts(LIMIT * FIRST_PARALLELISM, KEYS));
  }

  @Test
  void aCopiedJobDirectoryRestoresFromItsNewPlace() throws Exception {
    Retained first = runAndCancel(checkpoints);
    Path copy = elsewhere.resolve("moved").resolve("some-job");
    copyTree(first.jobDir(), copy);
    deleteTree(first.jobDir()); // nothing may still point to the original place

    CollectSink<Count> sink = new CollectSink<>();
    JobExecutionResult result =
        resume(copy.resolve("chk-" + first.checkpointId()).toUri().toString(), 2, sink);

    assertContinued(first, result, sink);
  }

  @Test
  void aSingleCheckpointDirectoryCopiedAndRenamedRestores() throws Exception {
    org.junit.jupiter.api.Assumptions.assumeTrue(
        RecoveryTestSupport.checkpointsAreSelfContained(),
        "an incremental checkpoint refers to shared files of its job directory");
    Retained first = runAndCancel(checkpoints);
    Path copy = elsewhere.resolve("my-savepoint");
    copyTree(first.checkpointDir(), copy);
    deleteTree(first.jobDir());

    CollectSink<Count> sink = new CollectSink<>();
    JobExecutionResult result = resume(copy.toString(), 2, sink); // a plain path works too

    assertContinued(first, result, sink);
  }

  @Test
  void keyedStateCheckpointedAtParallelismTwoRestoresAtThreeAndAtOne() throws Exception {
    Retained first = runAndCancel(checkpoints);
    String path = first.checkpointDir().toUri().toString();

    CollectSink<Count> atThree = new CollectSink<>();
    JobExecutionResult three = resume(path, 3, atThree);
    assertContinued(first, three, atThree);

    assertThat(Files.exists(first.checkpointDir().resolve("_metadata"))).isTrue();
    CollectSink<Count> atOne = new CollectSink<>();
    JobExecutionResult one = resume(path, 1, atOne);
    assertContinued(first, one, atOne);

    assertThat(firstCounts(atOne.results())).isEqualTo(firstCounts(atThree.results()));
    assertThat(finalCounts(atOne.results())).isEqualTo(finalCounts(atThree.results()));
  }

  @Test
  void theStatisticsOfACompletedCheckpointCarryThePathToResumeFrom() throws Exception {
    Retained first = runAndCancel(checkpoints);
    assertThat(first.externalPath())
        .isEqualTo(first.checkpointDir().toUri().toString().replaceAll("/$", ""));

    CollectSink<Count> sink = new CollectSink<>();
    JobExecutionResult result = resume(first.externalPath(), 2, sink);

    assertContinued(first, result, sink);
  }

  @Test
  void aResumedJobTakesUpTheCheckpointHistoryKeptBesideTheCheckpoint() throws Exception {
    Retained first = runAndCancel(checkpoints);

    CollectSink<Count> sink = new CollectSink<>();
    JobClient client = resumed(first.externalPath(), 2, sink).executeAsync("resumed-history");
    JobExecutionResult result = client.getJobExecutionResult().get(60, TimeUnit.SECONDS);

    assertContinued(first, result, sink);
    List<io.weir.api.CheckpointStatistics> history = client.getCheckpointStatistics();
    List<Long> ids = history.stream().map(io.weir.api.CheckpointStatistics::checkpointId).toList();
    assertThat(ids).as("the first job's checkpoints, then the resumed job's").isSorted();
    io.weir.api.CheckpointStatistics restored =
        history.stream()
            .filter(c -> c.checkpointId() == first.checkpointId())
            .findFirst()
            .orElseThrow(
                () -> new AssertionError("checkpoint " + first.checkpointId() + " not in " + ids));
    assertThat(restored.status()).isEqualTo(io.weir.api.CheckpointStatistics.Status.COMPLETED);
    assertThat(restored.externalPath()).isEqualTo(first.externalPath());
    assertThat(restored.subtasks()).as("kept with every subtask's figures").isNotEmpty();
    assertThat(restored.criticalPath()).isNotNull();
  }

  @Test
  void aJobsCheckpointDirectoryResumesFromItsNewestIntactCheckpoint() throws Exception {
    Retained first = runAndCancel(checkpoints);
    // A newer checkpoint whose metadata is damaged, and an even newer one that never completed.
    Path damaged = first.jobDir().resolve("chk-" + (first.checkpointId() + 5));
    copyTree(first.checkpointDir(), damaged);
    flipByte(damaged.resolve("_metadata"));
    Files.createDirectories(first.jobDir().resolve("chk-" + (first.checkpointId() + 6)));

    CollectSink<Count> sink = new CollectSink<>();
    JobExecutionResult result;
    try (LogCapture log = new LogCapture(LOCAL_JOB)) {
      result = resume(first.jobDir().toUri().toString(), 2, sink);
      assertThat(log.messages())
          .anyMatch(m -> m.contains("chk-" + (first.checkpointId() + 5)) && m.contains("skipped"))
          .anyMatch(
              m ->
                  m.contains("resumes from checkpoint " + first.checkpointId())
                      && m.contains("chk-" + first.checkpointId()));
    }

    assertContinued(first, result, sink);
  }

  static final String LOCAL_JOB = "io.weir.runtime.jobmaster";
}
