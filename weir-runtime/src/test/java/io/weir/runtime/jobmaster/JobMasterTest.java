package io.weir.runtime.jobmaster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

import io.weir.api.JobExecutionResult;
import io.weir.api.JobStatus;
import io.weir.api.RestartStrategy;
import io.weir.api.StreamEnvironment;
import io.weir.api.SuppressRestartsException;
import io.weir.api.graph.Pipeline;
import io.weir.api.sink.DiscardingSink;
import io.weir.runtime.graph.JobGraph;
import io.weir.runtime.graph.JobGraphBuilder;
import io.weir.runtime.task.TaskState;
import io.weir.runtime.taskexecutor.TaskDeploymentDescriptor;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

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
    JobMaster master = new JobMaster(graph, tasks::bind);
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
}
