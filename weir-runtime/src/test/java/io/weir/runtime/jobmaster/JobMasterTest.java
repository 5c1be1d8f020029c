package io.weir.runtime.jobmaster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

import io.weir.api.CheckpointStatistics;
import io.weir.api.JobExecutionResult;
import io.weir.api.JobID;
import io.weir.api.JobStatus;
import io.weir.api.RestartStrategy;
import io.weir.api.StreamEnvironment;
import io.weir.api.SuppressRestartsException;
import io.weir.api.config.Configuration;
import io.weir.api.graph.Pipeline;
import io.weir.api.sink.DiscardingSink;
import io.weir.runtime.checkpoint.CheckpointIDCounter;
import io.weir.runtime.checkpoint.CheckpointRecoveryFactory;
import io.weir.runtime.checkpoint.CompletedCheckpoint;
import io.weir.runtime.checkpoint.CompletedCheckpointStore;
import io.weir.runtime.checkpoint.CompletedStop;
import io.weir.runtime.graph.JobGraph;
import io.weir.runtime.graph.JobGraphBuilder;
import io.weir.runtime.metrics.JobMetrics;
import io.weir.runtime.task.CancelTaskException;
import io.weir.runtime.task.TaskState;
import io.weir.runtime.taskexecutor.ExecutionAttemptId;
import io.weir.runtime.taskexecutor.RunningAttempt;
import io.weir.runtime.taskexecutor.TaskDeploymentDescriptor;
import io.weir.runtime.taskexecutor.TaskExecutorGateway;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.LongFunction;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The job master and scheduler on a task executor that runs no task ({@link
 * TestingTaskExecutorGateway}): deployment, failover, restart counting and restore, each step
 * driven by the test.
 */
@Timeout(60)
class JobMasterTest {

  private static final Duration WAIT = Duration.ofSeconds(20);

  private final TestingTaskExecutorGateway tasks = new TestingTaskExecutorGateway();

  /** A source and a keyed sink at parallelism 2: two vertices, four subtasks. */
  private JobMaster jobMaster(Consumer<StreamEnvironment> settings) {
    return jobMaster(settings, JobMaster.Setup.newJob(), tasks);
  }

  private static JobMaster jobMaster(
      Consumer<StreamEnvironment> settings,
      JobMaster.Setup setup,
      TestingTaskExecutorGateway tasks) {
    StreamEnvironment env = StreamEnvironment.create();
    env.setParallelism(2);
    settings.accept(env);
    var sink =
        env.fromSequence(1, 100)
            .keyBy(n -> n % 7, io.weir.api.typeutils.Types.LONG)
            .sinkTo(new DiscardingSink<>());
    JobGraph graph =
        JobGraphBuilder.build(
            new Pipeline("testing", List.of(sink.getTransformation()), env.getConfiguration()));
    JobMaster master = new JobMaster(graph, setup, tasks::bind);
    master.start();
    return master;
  }

  private void awaitAttempts(int attempts) {
    await().atMost(WAIT).until(() -> tasks.attempts() == attempts && tasks.latest().size() == 4);
  }

  @Test
  void aJobWhoseSubtasksAllFinishIsFinishedWithoutARestart() throws Exception {
    JobMaster master = jobMaster(env -> {});
    awaitAttempts(1);

    tasks.finishAll();

    JobExecutionResult result = master.getJobExecutionResult().get(20, TimeUnit.SECONDS);
    assertThat(result.metrics()).containsEntry("job.restarts", 0L);
    assertThat(master.getJobStatus().get()).isEqualTo(JobStatus.FINISHED);
    assertThat(tasks.released).containsExactly(master.getJobID().value());
  }

  /**
   * Subtasks cancelled on their TaskManager without the job master asking (a TaskManager that gave
   * up waiting for a new leader cancels the tasks it kept) have not finished: the job restarts
   * rather than ending FINISHED with its sinks' last transactions never committed. The attempt's
   * failure says why its TaskManager cancelled them.
   */
  @Test
  void subtasksCancelledWithoutTheJobMasterAskingRestartTheJobRatherThanFinishIt()
      throws Exception {
    JobMaster master =
        jobMaster(env -> env.setRestartStrategy(RestartStrategy.fixedDelay(3, Duration.ZERO)));
    awaitAttempts(1);

    String why = "TaskManager tm-1 cancelled its tasks: it lost the JobManager at 127.0.0.1:6123";
    for (TaskDeploymentDescriptor task : tasks.latest()) {
      tasks.end(task.id(), TaskState.CANCELED, new CancelTaskException(why));
    }

    awaitAttempts(2);
    assertThat(tasks.attemptFailures)
        .singleElement()
        .satisfies(
            cause ->
                assertThat(cause.getMessage())
                    .contains("of attempt 0 was cancelled on its TaskManager")
                    .endsWith("without the job master asking: " + why));
    assertThat(master.getJobStatus().get()).isEqualTo(JobStatus.RUNNING);
    tasks.finishAll();
    JobExecutionResult result = master.getJobExecutionResult().get(20, TimeUnit.SECONDS);
    assertThat(result.metrics()).containsEntry("job.restarts", 1L);
  }

  @Test
  void subtasksWaitingForSlotsAreScheduledNotRunning() throws Exception {
    JobMaster master = jobMaster(env -> {});
    awaitAttempts(1);
    List<TaskDeploymentDescriptor> attempt = tasks.latest();
    assertThat(attempt).hasSizeGreaterThanOrEqualTo(2);
    tasks.placements.put(attempt.get(0).id(), TaskExecutorGateway.Placement.SCHEDULED);
    tasks.placements.put(attempt.get(1).id(), TaskExecutorGateway.Placement.DEPLOYING);

    Map<ExecutionAttemptId, String> states = new java.util.HashMap<>();
    for (SubtaskStatus s : master.subtasks().get(20, TimeUnit.SECONDS)) {
      states.put(
          new ExecutionAttemptId(master.getJobID().value(), s.vertex(), s.subtask(), s.attempt()),
          s.status());
    }
    assertThat(states.get(attempt.get(0).id())).isEqualTo("SCHEDULED");
    assertThat(states.get(attempt.get(1).id())).isEqualTo("DEPLOYING");
    for (TaskDeploymentDescriptor other : attempt.subList(2, attempt.size())) {
      assertThat(states.get(other.id())).isEqualTo("RUNNING");
    }
    tasks.finishAll();
    master.getJobExecutionResult().get(20, TimeUnit.SECONDS);
  }

  @Test
  void aFailedSubtaskCancelsTheOthersAndRestartsUntilTheStrategyGivesUp() throws Exception {
    JobMaster master =
        jobMaster(env -> env.setRestartStrategy(RestartStrategy.fixedDelay(2, Duration.ZERO)));

    for (int attempt = 0; attempt < 3; attempt++) {
      awaitAttempts(attempt + 1);
      TaskDeploymentDescriptor victim = tasks.latest().get(0);
      assertThat(victim.id().attempt()).isEqualTo(attempt);
      tasks.end(victim.id(), TaskState.FAILED, new IllegalStateException("boom " + attempt));
    }

    Throwable failure =
        catchThrowable(() -> master.getJobExecutionResult().get(20, TimeUnit.SECONDS));
    assertThat(failure).hasRootCauseMessage("boom 2");
    assertThat(tasks.attempts()).as("the first attempt and two restarts").isEqualTo(3);
    assertThat(tasks.live).as("every subtask of every attempt ended").isEmpty();
  }

  @Test
  void aFailureEveryAttemptWouldMeetFailsTheJobAtOnce() throws Exception {
    JobMaster master =
        jobMaster(env -> env.setRestartStrategy(RestartStrategy.fixedDelay(100, Duration.ZERO)));
    awaitAttempts(1);

    tasks.end(
        tasks.latest().get(1).id(),
        TaskState.FAILED,
        new SuppressRestartsException("no point", null));

    Throwable failure =
        catchThrowable(() -> master.getJobExecutionResult().get(20, TimeUnit.SECONDS));
    assertThat(failure).isNotNull();
    assertThat(tasks.attempts()).isEqualTo(1);
  }

  /**
   * A checkpoint that expires fails the job (no failure tolerated) with a message that names each
   * subtask it waited for and the TaskManager its task executor placed it on.
   */
  @Test
  void anExpiredCheckpointNamesWhereEachSubtaskItWaitedForRuns() throws Exception {
    tasks.locations =
        id -> "tm-" + id.vertex() + "-" + id.subtask() + " (10.0.0." + id.vertex() + ":6121)";
    JobMaster master =
        jobMaster(
            env -> {
              env.enableCheckpointing(Duration.ofMillis(10));
              env.getCheckpointConfig().setCheckpointTimeout(Duration.ofMillis(50));
              env.setRestartStrategy(RestartStrategy.none());
            });
    awaitAttempts(1);

    Throwable failure =
        catchThrowable(() -> master.getJobExecutionResult().get(20, TimeUnit.SECONDS));

    assertThat(failure)
        .hasStackTraceContaining("TIMEOUT")
        .hasStackTraceContaining("(1/2) on tm-0-0 (10.0.0.0:6121), ")
        .hasStackTraceContaining("(2/2) on tm-0-1 (10.0.0.0:6121), ")
        .hasStackTraceContaining("(1/2) on tm-1-0 (10.0.0.1:6121), ")
        .hasStackTraceContaining("(2/2) on tm-1-1 (10.0.0.1:6121)");
  }

  @Test
  void aRestartRestoresEverySubtaskFromTheLatestCompletedCheckpoint() throws Exception {
    tasks.acknowledgeCheckpoints();
    JobMaster master =
        jobMaster(
            env -> {
              env.enableCheckpointing(Duration.ofMillis(10));
              env.setRestartStrategy(RestartStrategy.fixedDelay(1, Duration.ZERO));
            });
    awaitAttempts(1);
    await().atMost(WAIT).until(() -> master.coordinator().latestCompleted() != null);
    await().atMost(WAIT).until(() -> tasks.completedNotifications.size() == 4);

    tasks.stopAcknowledging();
    long latest = master.coordinator().latestCompleted().checkpointId();

    tasks.end(tasks.latest().get(0).id(), TaskState.FAILED, new IllegalStateException("boom"));
    awaitAttempts(2);

    assertThat(latest).isPositive();
    assertThat(tasks.latest())
        .allSatisfy(t -> assertThat(t.restore().checkpointId()).isEqualTo(latest));
    master.cancel().get(20, TimeUnit.SECONDS);
    assertThat(master.getJobStatus().get()).isEqualTo(JobStatus.CANCELED);
  }

  @Test
  void theJobsMetricsCountCheckpointsAndRestartsAndTellTheLastRestore() throws Exception {
    tasks.acknowledgeCheckpoints();
    JobMaster master =
        jobMaster(
            env -> {
              env.enableCheckpointing(Duration.ofMillis(10));
              env.setRestartStrategy(RestartStrategy.fixedDelay(1, Duration.ZERO));
            });
    awaitAttempts(1);
    JobMetrics fresh = master.currentMetrics();
    assertThat(fresh.numRestarts()).isZero();
    assertThat(fresh.lastCheckpointRestoreTimestamp()).as("never restored").isEqualTo(-1);
    assertThat(fresh.uptime()).isNotNegative();

    await().atMost(WAIT).until(() -> master.currentMetrics().numberOfCompletedCheckpoints() >= 2);
    JobMetrics running = master.currentMetrics();
    assertThat(running.lastCheckpointDuration()).isNotNegative();
    assertThat(running.lastCheckpointSize()).as("no state: nothing written").isZero();
    assertThat(running.lastCheckpointFullSize()).isZero();
    assertThat(running.asMap()).containsEntry("numRestarts", 0L);

    tasks.stopAcknowledging();
    long failedAt = System.currentTimeMillis();
    tasks.end(tasks.latest().get(0).id(), TaskState.FAILED, new IllegalStateException("boom"));
    awaitAttempts(2);

    JobMetrics restarted = master.currentMetrics();
    assertThat(restarted.numRestarts()).isEqualTo(1);
    assertThat(restarted.lastCheckpointRestoreTimestamp())
        .as("the second attempt restored the latest checkpoint")
        .isBetween(failedAt, System.currentTimeMillis());
    assertThat(restarted.numberOfCompletedCheckpoints())
        .isGreaterThanOrEqualTo(running.numberOfCompletedCheckpoints());

    master.cancel().get(20, TimeUnit.SECONDS);
    assertThat(master.currentMetrics().uptime()).as("ended").isEqualTo(-1);
    assertThat(master.currentMetrics().numberOfInProgressCheckpoints()).isZero();
  }

  /**
   * Checkpoint ids and completed checkpoints kept beyond one job master, as ZooKeeper keeps them
   * for the next leader; its adds fail while {@link #failAdds} is set.
   */
  private static final class SharedRecovery implements CheckpointRecoveryFactory {
    final AtomicLong lastId = new AtomicLong();
    final CompletedCheckpointStore completed = CompletedCheckpointStore.inMemory(1, List.of());
    volatile RuntimeException failAdds;

    /** The newest checkpoint recorded, or null. */
    synchronized CompletedCheckpoint newest() {
      List<CompletedCheckpoint> all = completed.all();
      return all.isEmpty() ? null : all.get(0);
    }

    @Override
    public CheckpointIDCounter createCheckpointIdCounter(String jobId, long last) {
      lastId.accumulateAndGet(last, Math::max);
      return new CheckpointIDCounter() {
        @Override
        public long getAndIncrement() {
          return lastId.incrementAndGet();
        }

        @Override
        public long get() {
          return lastId.get();
        }
      };
    }

    @Override
    public CompletedCheckpointStore createCompletedCheckpointStore(
        String jobId, int numRetained, LongFunction<String> pointerOf, Configuration conf) {
      SharedRecovery shared = this;
      return new CompletedCheckpointStore() {
        @Override
        public List<CompletedCheckpoint> add(CompletedCheckpoint checkpoint) {
          RuntimeException failure = failAdds;
          if (failure != null) {
            throw failure;
          }
          synchronized (shared) {
            return completed.add(checkpoint);
          }
        }

        @Override
        public List<CompletedCheckpoint> all() {
          synchronized (shared) {
            return completed.all();
          }
        }

        @Override
        public List<CompletedCheckpoint> removeAll() {
          synchronized (shared) {
            return completed.removeAll();
          }
        }

        @Override
        public void stopCompleted(CompletedStop stop) {
          completed.stopCompleted(stop);
        }

        @Override
        public CompletedStop completedStop() {
          return completed.completedStop();
        }
      };
    }
  }

  private static void checkpointEvery10Ms(StreamEnvironment env) {
    env.enableCheckpointing(Duration.ofMillis(10));
    env.setRestartStrategy(RestartStrategy.fixedDelay(1, Duration.ZERO));
  }

  @Test
  void aJobMasterOfARecoveredJobRestoresTheNewestRecordedCheckpointAndGoesOnWithItsIds()
      throws Exception {
    Suspended before = runUntilSuspendedWithACheckpointInFlight();
    JobID jobId = before.jobId();
    SharedRecovery recovery = before.recovery();
    long newest = before.newest();
    long lastId = before.lastId();

    TestingTaskExecutorGateway next = new TestingTaskExecutorGateway();
    next.acknowledgeCheckpoints();
    JobMaster second =
        jobMaster(
            JobMasterTest::checkpointEvery10Ms, new JobMaster.Setup(jobId, recovery, 1000), next);
    await().atMost(WAIT).until(() -> next.latest().size() == 4);

    assertThat(second.getJobID()).isEqualTo(jobId);
    assertThat(next.latest())
        .allSatisfy(
            t -> {
              assertThat(t.id().attempt()).isEqualTo(1000);
              assertThat(t.restore().checkpointId()).isEqualTo(newest);
            });
    await().atMost(WAIT).until(() -> recovery.newest().checkpointId() > lastId);
    second.cancel().get(20, TimeUnit.SECONDS);
  }

  /** What a job master left when it was suspended with checkpoints completed and one pending. */
  private record Suspended(
      JobID jobId,
      SharedRecovery recovery,
      long newest,
      long lastId,
      List<ExecutionAttemptId> running) {}

  /**
   * Runs a job with checkpoints until two completed, lets one more be triggered that never
   * completes, and suspends its job master as a deposed leader's is.
   */
  private Suspended runUntilSuspendedWithACheckpointInFlight() throws Exception {
    SharedRecovery recovery = new SharedRecovery();
    JobMaster first = checkpointingInto(recovery);
    JobID jobId = first.getJobID();
    awaitAttempts(1);
    await()
        .atMost(WAIT)
        .until(() -> recovery.newest() != null && recovery.newest().checkpointId() >= 2);
    tasks.stopAcknowledging();
    long newest = recovery.newest().checkpointId();
    await().atMost(WAIT).until(() -> recovery.lastId.get() > newest);
    first.suspend("testing: another job master leads");
    return new Suspended(
        jobId,
        recovery,
        recovery.newest().checkpointId(),
        recovery.lastId.get(),
        tasks.latest().stream().map(TaskDeploymentDescriptor::id).toList());
  }

  @Test
  void aJobMasterTakingOverAJobAdoptsItsRunningSubtasksAndNotifiesTheNewestCheckpointAgain()
      throws Exception {
    Suspended before = runUntilSuspendedWithACheckpointInFlight();
    TestingTaskExecutorGateway next = new TestingTaskExecutorGateway();
    JobMaster second = adopting(before, next);
    await()
        .atMost(WAIT)
        .until(
            () ->
                next.completedNotifications.size() == 4
                    && next.completedNotifications.values().stream()
                        .allMatch(ids -> ids.get(ids.size() - 1) > before.lastId()));

    assertThat(next.deployments)
        .as("nothing deployed: the running subtasks were adopted")
        .isEmpty();
    assertThat(next.adoptions).hasSize(1);
    assertThat(next.adoptions.get(0)).containsExactlyInAnyOrderElementsOf(before.running());
    for (ExecutionAttemptId task : before.running()) {
      assertThat(next.completedNotifications.get(task))
          .as("the newest recorded checkpoint is notified again first, then only newer ones")
          .startsWith(before.newest())
          .doesNotHaveDuplicates();
      assertThat(next.abortedNotifications.get(task))
          .as("the checkpoint in flight when the leader was lost is aborted")
          .contains(before.lastId());
    }
    assertThat(second.getJobStatus().get()).isEqualTo(JobStatus.RUNNING);
    second.cancel().get(20, TimeUnit.SECONDS);
    assertThat(next.cancelled).containsExactlyInAnyOrderElementsOf(before.running());
    assertThat(second.getJobStatus().get()).isEqualTo(JobStatus.CANCELED);
  }

  /**
   * A job master that takes over the job {@code before} left and adopts its running subtasks on
   * {@code next}, which acknowledges every checkpoint.
   */
  private static JobMaster adopting(Suspended before, TestingTaskExecutorGateway next) {
    next.offer(new RunningAttempt(0, Set.copyOf(before.running()), Set.of()));
    next.acknowledgeCheckpoints();
    return jobMaster(
        JobMasterTest::checkpointEvery10Ms,
        new JobMaster.Setup(before.jobId(), before.recovery(), 1000, true),
        next);
  }

  /** What a job master left when it was lost after its stop-with-savepoint completed. */
  private record Stopped(JobID jobId, SharedRecovery recovery, CompletedStop stop, Suspended at) {}

  /**
   * Runs a job with checkpoints, stops it with a savepoint into {@code dir} that completes and
   * whose tasks are told, and loses its job master before any task ended.
   */
  private Stopped runUntilLostAfterACompletedStop(Path dir) throws Exception {
    SharedRecovery recovery = new SharedRecovery();
    JobMaster first = checkpointingInto(recovery);
    JobID jobId = first.getJobID();
    awaitAttempts(1);
    await().atMost(WAIT).until(() -> recovery.newest() != null);
    var unused = first.stopWithSavepoint(dir.toString(), false);
    await().atMost(WAIT).until(() -> recovery.completed.completedStop() != null);
    CompletedStop stop = recovery.completed.completedStop();
    await()
        .atMost(WAIT)
        .until(
            () ->
                tasks.completedNotifications.values().stream()
                        .filter(ids -> ids.contains(stop.savepointId()))
                        .count()
                    == 4);
    first.suspend("testing: the job master is lost");
    List<ExecutionAttemptId> running =
        tasks.latest().stream().map(TaskDeploymentDescriptor::id).toList();
    return new Stopped(
        jobId,
        recovery,
        stop,
        new Suspended(
            jobId, recovery, recovery.newest().checkpointId(), recovery.lastId.get(), running));
  }

  /**
   * Its tasks were told to commit the savepoint: a job master that took the job over and restored
   * the newest checkpoint, older than the savepoint, would commit the records between them again
   * (found by the simulation with stop-with-savepoint, seed 161).
   */
  @Test
  void aJobMasterTakingOverAJobWhoseStopCompletedEndsItNamingTheSavepoint(@TempDir Path dir)
      throws Exception {
    Stopped before = runUntilLostAfterACompletedStop(dir);
    assertThat(before.stop().path()).startsWith(dir.toUri().toString().replaceAll("/$", ""));
    TestingTaskExecutorGateway next = new TestingTaskExecutorGateway();

    JobMaster second =
        jobMaster(
            JobMasterTest::checkpointEvery10Ms,
            new JobMaster.Setup(before.jobId(), before.recovery(), 1000),
            next);

    Throwable end = catchThrowable(() -> second.getJobExecutionResult().get(20, TimeUnit.SECONDS));
    assertThat(end)
        .hasMessageContaining("was stopped with savepoint " + before.stop().savepointId())
        .hasMessageContaining(before.stop().path())
        .hasMessageContaining("its job master was lost before every task had ended")
        .hasMessageContaining("resume the job from the savepoint");
    assertThat(second.getJobStatus().get()).isEqualTo(JobStatus.FAILED);
    assertThat(next.deployments).as("no older checkpoint restored").isEmpty();
  }

  @Test
  void aJobMasterAdoptingTheSubtasksOfACompletedStopTellsThemAgainAndTriggersNothing(
      @TempDir Path dir) throws Exception {
    Stopped before = runUntilLostAfterACompletedStop(dir);
    long lastId = before.recovery().lastId.get();
    TestingTaskExecutorGateway next = new TestingTaskExecutorGateway();
    JobMaster second = adopting(before.at(), next);
    // Told at once, and again every interval until the attempt ends.
    await()
        .atMost(WAIT)
        .until(
            () ->
                before.at().running().stream()
                    .allMatch(
                        t ->
                            next.completedNotifications.getOrDefault(t, List.of()).stream()
                                    .filter(id -> id == before.stop().savepointId())
                                    .count()
                                >= 2));

    assertThat(next.deployments).isEmpty();
    assertThat(before.recovery().lastId.get()).as("no checkpoint after the stop").isEqualTo(lastId);
    second.cancel().get(20, TimeUnit.SECONDS);
  }

  @Test
  void aJobMasterThatCannotAdoptEverySubtaskCancelsThemAndRestoresWithoutSpendingARestart()
      throws Exception {
    Suspended before = runUntilSuspendedWithACheckpointInFlight();
    ExecutionAttemptId lost = before.running().get(0);
    Set<ExecutionAttemptId> offered = new java.util.HashSet<>(before.running());
    offered.remove(lost);
    TestingTaskExecutorGateway next = new TestingTaskExecutorGateway();
    next.offer(new RunningAttempt(0, offered, Set.of(lost)));

    JobMaster second =
        jobMaster(
            JobMasterTest::checkpointEvery10Ms,
            new JobMaster.Setup(before.jobId(), before.recovery(), 1000, true),
            next);
    await().atMost(WAIT).until(() -> next.latest().size() == 4);

    assertThat(next.cancelled).containsExactlyInAnyOrderElementsOf(before.running());
    assertThat(next.latest())
        .allSatisfy(
            t -> {
              assertThat(t.id().attempt()).isEqualTo(1000);
              assertThat(t.restore().checkpointId()).isEqualTo(before.newest());
            });
    // The restart strategy allows one restart: the failed adoption did not spend it.
    next.end(next.latest().get(0).id(), TaskState.FAILED, new IllegalStateException("boom"));
    await().atMost(WAIT).until(() -> next.latest().get(0).id().attempt() == 1001);
    assertThat(second.getJobStatus().get()).isNotEqualTo(JobStatus.FAILED);
    second.cancel().get(20, TimeUnit.SECONDS);
  }

  @Test
  void anAdoptionATaskExecutorRefusesFallsBackToTheNewestCheckpoint() throws Exception {
    Suspended before = runUntilSuspendedWithACheckpointInFlight();
    TestingTaskExecutorGateway next = new TestingTaskExecutorGateway();
    next.offer(new RunningAttempt(0, Set.copyOf(before.running()), Set.of()));
    next.refuseAdoption(new IllegalStateException("testing: the grace period expired"));

    JobMaster second =
        jobMaster(
            JobMasterTest::checkpointEvery10Ms,
            new JobMaster.Setup(before.jobId(), before.recovery(), 1000, true),
            next);
    await().atMost(WAIT).until(() -> next.latest().size() == 4);

    assertThat(next.cancelled).containsExactlyInAnyOrderElementsOf(before.running());
    assertThat(next.latest())
        .allSatisfy(t -> assertThat(t.restore().checkpointId()).isEqualTo(before.newest()));
    second.cancel().get(20, TimeUnit.SECONDS);
  }

  @Test
  void aJobMasterTakingOverAJobOfWhichNothingRunsDeploysItFromItsNewestCheckpoint()
      throws Exception {
    Suspended before = runUntilSuspendedWithACheckpointInFlight();
    TestingTaskExecutorGateway next = new TestingTaskExecutorGateway();

    JobMaster second =
        jobMaster(
            JobMasterTest::checkpointEvery10Ms,
            new JobMaster.Setup(before.jobId(), before.recovery(), 1000, true),
            next);
    await().atMost(WAIT).until(() -> next.latest().size() == 4);

    assertThat(next.adoptions).isEmpty();
    assertThat(next.latest())
        .allSatisfy(
            t -> {
              assertThat(t.id().attempt()).isEqualTo(1000);
              assertThat(t.restore().checkpointId()).isEqualTo(before.newest());
            });
    second.cancel().get(20, TimeUnit.SECONDS);
  }

  @Test
  void aSuspendedJobMasterCancelsNotifiesAndDeletesNothingAndEndsSuspended() throws Exception {
    tasks.acknowledgeCheckpoints();
    JobMaster master = jobMaster(JobMasterTest::checkpointEvery10Ms);
    awaitAttempts(1);
    await().atMost(WAIT).until(() -> master.coordinator().latestCompleted() != null);

    master.suspend("testing: leadership revoked");
    int notifications = tasks.completedNotifications.values().stream().mapToInt(List::size).sum();
    tasks.end(tasks.latest().get(0).id(), TaskState.FAILED, new IllegalStateException("late"));
    tasks.awaitAnswers();

    Throwable end = catchThrowable(() -> master.getJobExecutionResult().get(20, TimeUnit.SECONDS));
    assertThat(end).hasMessageContaining("suspended").hasMessageContaining("leadership revoked");
    assertThat(master.getJobStatus().get()).isEqualTo(JobStatus.SUSPENDED);
    assertThat(tasks.live).as("no task was cancelled").hasSize(3);
    assertThat(tasks.attempts()).as("a late failure restarts nothing").isEqualTo(1);
    assertThat(tasks.completedNotifications.values().stream().mapToInt(List::size).sum())
        .isEqualTo(notifications);
    assertThat(tasks.released).isEmpty();
  }

  /** A job checkpointing every 10 ms into {@code recovery}'s store, its tasks acknowledging. */
  private JobMaster checkpointingInto(SharedRecovery recovery) {
    tasks.acknowledgeCheckpoints();
    return jobMaster(
        JobMasterTest::checkpointEvery10Ms,
        new JobMaster.Setup(JobID.generate(), recovery, 0),
        tasks);
  }

  /**
   * The end was recorded (with high availability: the job's result) only after the checkpoints were
   * deleted: a JobManager lost in between left a successor the job submitted and its checkpoints
   * gone, and it ran the job from its beginning (the simulation's long run, seed 1001424).
   */
  @Test
  void aJobsEndIsRecordedBeforeItsCheckpointsAreDeleted(@TempDir Path dir) throws Exception {
    SharedRecovery recovery = new SharedRecovery();
    tasks.acknowledgeCheckpoints();
    String checkpoints = dir.toUri().toString();
    JobMaster master =
        jobMaster(
            env -> {
              checkpointEvery10Ms(env);
              env.getConfiguration()
                  .set(io.weir.api.config.CheckpointingOptions.CHECKPOINTS_DIRECTORY, checkpoints);
            },
            new JobMaster.Setup(JobID.generate(), recovery, 0),
            tasks);
    List<String> recorded = new java.util.concurrent.CopyOnWriteArrayList<>();
    master.recordEndWith(
        (status, endTime, failure, checkpointsToDelete) ->
            recorded.add(
                status
                    + " "
                    + failure
                    + ", checkpoint kept: "
                    + (recovery.newest() != null)
                    + ", to delete: "
                    + checkpointsToDelete));
    awaitAttempts(1);
    await().atMost(WAIT).until(() -> recovery.newest() != null);

    master.cancel().get(20, TimeUnit.SECONDS);
    assertThat(catchThrowable(() -> master.getJobExecutionResult().get(20, TimeUnit.SECONDS)))
        .hasMessageContaining("was cancelled");

    assertThat(recorded)
        .singleElement()
        .asString()
        .startsWith("CANCELED")
        .contains("was cancelled")
        .contains("checkpoint kept: true")
        .as("what a JobManager that takes over the clean-up deletes")
        .endsWith("to delete: " + checkpoints);
    assertThat(recovery.newest()).as("deleted once the end was recorded").isNull();
  }

  @Test
  void aJobWhoseEndCannotBeRecordedKeepsItsCheckpointsForWhoeverRunsItNext() throws Exception {
    SharedRecovery recovery = new SharedRecovery();
    JobMaster master = checkpointingInto(recovery);
    master.recordEndWith(
        (status, endTime, failure, checkpointsToDelete) -> {
          throw new IllegalStateException("testing: a newer leader took over");
        });
    awaitAttempts(1);
    await().atMost(WAIT).until(() -> recovery.newest() != null);

    master.cancel().get(20, TimeUnit.SECONDS);
    assertThat(catchThrowable(() -> master.getJobExecutionResult().get(20, TimeUnit.SECONDS)))
        .hasMessageContaining("was cancelled");

    assertThat(master.getJobStatus().get()).isEqualTo(JobStatus.CANCELED);
    assertThat(recovery.newest()).as("kept: a later leader may run the job from it").isNotNull();
  }

  @Test
  void aCheckpointTheStoreDoesNotRecordIsNotCompletedAndDoesNotFailTheJob() throws Exception {
    SharedRecovery recovery = new SharedRecovery();
    recovery.failAdds = new IllegalStateException("testing: the write's outcome is unknown");
    tasks.acknowledgeCheckpoints();
    JobMaster master =
        jobMaster(
            env -> {
              checkpointEvery10Ms(env);
              env.getCheckpointConfig().setTolerableCheckpointFailureNumber(0);
            },
            new JobMaster.Setup(JobID.generate(), recovery, 0),
            tasks);
    awaitAttempts(1);
    await()
        .atMost(WAIT)
        .until(
            () ->
                master.getCheckpointStatistics().stream()
                        .filter(c -> c.status() == CheckpointStatistics.Status.FAILED)
                        .count()
                    >= 3);

    assertThat(master.coordinator().latestCompleted()).isNull();
    assertThat(tasks.completedNotifications).as("no sink commits what was not recorded").isEmpty();
    assertThat(master.getJobStatus().get()).isEqualTo(JobStatus.RUNNING);
    assertThat(tasks.attempts()).isEqualTo(1);

    recovery.failAdds = null;
    await().atMost(WAIT).until(() -> recovery.newest() != null);
    await().atMost(WAIT).until(() -> !tasks.completedNotifications.isEmpty());
    master.cancel().get(20, TimeUnit.SECONDS);
  }
}
