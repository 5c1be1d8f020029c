package io.weir.runtime.taskexecutor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.weir.api.DataStreamSink;
import io.weir.api.JobID;
import io.weir.api.StreamEnvironment;
import io.weir.api.config.CheckpointingOptions;
import io.weir.api.config.CoreOptions;
import io.weir.api.config.MemorySize;
import io.weir.api.functions.CheckpointListener;
import io.weir.api.functions.MapFunction;
import io.weir.api.functions.OpenContext;
import io.weir.api.functions.RichMapFunction;
import io.weir.api.graph.Pipeline;
import io.weir.api.graph.SourceTransformation;
import io.weir.api.sink.DiscardingSink;
import io.weir.api.source.Source;
import io.weir.api.typeutils.Types;
import io.weir.runtime.api.CollectSink;
import io.weir.runtime.api.FailurePropagationTest;
import io.weir.runtime.api.UnboundedSource;
import io.weir.runtime.checkpoint.BarrierHandler;
import io.weir.runtime.checkpoint.CheckpointOptions;
import io.weir.runtime.checkpoint.OperatorSubtaskState;
import io.weir.runtime.checkpoint.StateElement;
import io.weir.runtime.checkpoint.TaskRestore;
import io.weir.runtime.graph.JobGraph;
import io.weir.runtime.graph.JobGraphBuilder;
import io.weir.runtime.graph.JobVertex;
import io.weir.runtime.graph.StreamNode;
import io.weir.runtime.jobmaster.JobMasterGateway;
import io.weir.runtime.metrics.TaskIOMetrics;
import io.weir.runtime.metrics.TaskMetricsReporter;
import io.weir.runtime.metrics.TaskScope;
import io.weir.runtime.storage.StateSizeLimitException;
import io.weir.runtime.task.CancelTaskException;
import io.weir.runtime.task.SourceStreamTask;
import io.weir.runtime.task.StreamTask;
import io.weir.runtime.task.TaskFailureException;
import io.weir.runtime.task.TaskState;
import io.weir.runtime.taskexecutor.TestingJobMasterGateway.Acknowledged;
import io.weir.runtime.taskexecutor.TestingJobMasterGateway.Declined;
import io.weir.runtime.taskexecutor.TestingJobMasterGateway.ReachedEndOfInput;
import io.weir.runtime.taskexecutor.TestingJobMasterGateway.Terminated;
import java.net.URL;
import java.net.URLClassLoader;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A task executor running real subtasks with no job master behind it ({@link
 * TestingJobMasterGateway}): the test deploys an attempt as the scheduler would, plays the
 * checkpoint coordinator, and checks what the subtasks report: their ends, acknowledgements and
 * refusals of checkpoints, their end of input.
 */
@Timeout(60)
class TaskExecutorTest {

  private static final Duration WAIT = TestingJobMasterGateway.WAIT;

  private final String jobId = JobID.generate().value();
  private final TestingJobMasterGateway jobMaster = new TestingJobMasterGateway();

  /** The subtasks reported to the metrics and not yet unregistered. */
  private final Map<TaskScope, TaskIOMetrics> reported = new ConcurrentHashMap<>();

  private final TaskExecutor taskExecutor =
      new TaskExecutor(
          jobMaster,
          null,
          (scope, metrics) -> {
            reported.put(scope, metrics);
            return () -> reported.remove(scope);
          });

  @AfterEach
  void stopEverySubtask() throws Exception {
    List<StreamTask> left = taskExecutor.runningTasks();
    taskExecutor.close();
    for (StreamTask task : left) {
      task.getTermination().get(WAIT.toSeconds(), TimeUnit.SECONDS);
    }
    taskExecutor.releaseJob(jobId);
  }

  @Test
  void aBoundedJobWithoutCheckpointsReportsEverySubtaskFinishedWithItsRecordCounts()
      throws Exception {
    StreamEnvironment env = StreamEnvironment.create();
    env.setParallelism(1);
    JobGraph graph =
        graph(
            env,
            env.fromSequence(1, 100).keyBy(n -> n % 7, Types.LONG).sinkTo(new DiscardingSink<>()));
    List<TaskDeploymentDescriptor> tasks = deploy(graph, false);

    Terminated source = jobMaster.awaitTermination(tasks.get(0).id());
    Terminated sink = jobMaster.awaitTermination(tasks.get(1).id());

    assertThat(source.state()).isEqualTo(TaskState.FINISHED);
    assertThat(source.failure()).isNull();
    // A record of a Long without a timestamp is its 4-byte header and 8 bytes.
    assertThat(source.metrics())
        .isEqualTo(
            new JobMasterGateway.TaskMetrics(graph.vertices().get(0).getName(), 0, 100, 0, 1200));
    assertThat(sink.state()).isEqualTo(TaskState.FINISHED);
    assertThat(sink.failure()).isNull();
    assertThat(sink.metrics())
        .isEqualTo(
            new JobMasterGateway.TaskMetrics(graph.vertices().get(1).getName(), 100, 0, 1200, 0));
    assertThat(jobMaster.reports(ReachedEndOfInput.class))
        .as("with checkpointing off no final checkpoint is asked for")
        .isEmpty();
    assertThat(taskExecutor.runningTasks()).isEmpty();
  }

  @Test
  void bytesAreCountedWhereRecordsCrossATaskBoundaryOncePerChannelAndNeverBetweenChainedOperators()
      throws Exception {
    StreamEnvironment env = StreamEnvironment.create();
    env.setParallelism(1);
    JobGraph graph =
        graph(
            env,
            env.fromSequence(1, 100)
                .map(n -> n * 2)
                .map(n -> n + 1)
                .keyBy(n -> n % 7, Types.LONG)
                .map(n -> n - 1)
                .setParallelism(2)
                .sinkTo(new DiscardingSink<>())
                .setParallelism(2));
    assertThat(graph.vertices()).as("source and maps; keyed map and sink").hasSize(2);
    List<TaskDeploymentDescriptor> tasks = deploy(graph, false);
    assertThat(tasks).hasSize(3);

    Terminated source = jobMaster.awaitTermination(tasks.get(0).id());
    Terminated sink0 = jobMaster.awaitTermination(tasks.get(1).id());
    Terminated sink1 = jobMaster.awaitTermination(tasks.get(2).id());

    // 12 bytes a record (a 4-byte header and a Long), over the network edge only: the chained
    // maps before it and the sink after it send nothing, and a source reads nothing.
    assertThat(source.metrics().bytesIn()).isZero();
    assertThat(source.metrics().bytesOut()).isEqualTo(100 * 12);
    assertThat(sink0.metrics().bytesOut()).isZero();
    assertThat(sink1.metrics().bytesOut()).isZero();
    assertThat(sink0.metrics().bytesIn()).isEqualTo(sink0.metrics().recordsIn() * 12);
    assertThat(sink1.metrics().bytesIn()).isEqualTo(sink1.metrics().recordsIn() * 12);
    assertThat(sink0.metrics().bytesIn() + sink1.metrics().bytesIn()).isEqualTo(100 * 12);
  }

  @Test
  void aBoundedJobWithCheckpointsFinishesOnlyOnceItsFinalCheckpointCompleted() throws Exception {
    StreamEnvironment env = StreamEnvironment.create();
    env.setParallelism(1);
    ListeningMap listener = new ListeningMap();
    JobGraph graph =
        graph(
            env,
            env.fromSequence(1, 100)
                .keyBy(n -> n % 7, Types.LONG)
                .map(listener)
                .sinkTo(new DiscardingSink<>()));
    List<TaskDeploymentDescriptor> tasks = deploy(graph, true);
    ExecutionAttemptId source = tasks.get(0).id();

    jobMaster.awaitEndOfInput(source);
    trigger(source, 1);
    List<Acknowledged> acks = new ArrayList<>();
    for (TaskDeploymentDescriptor task : tasks) {
      acks.add(jobMaster.awaitAcknowledgement(task.id(), 1));
    }

    assertThat(acks)
        .as("every subtask had ended its input when it took the final checkpoint")
        .allSatisfy(
            ack -> assertThat(ack.states().values()).allMatch(OperatorSubtaskState::finished));
    assertThat(jobMaster.reports(Terminated.class))
        .as("no subtask finishes before its final checkpoint completed")
        .isEmpty();

    for (TaskDeploymentDescriptor task : tasks) {
      taskExecutor.notifyCheckpointComplete(task.id(), 1, true);
    }

    for (TaskDeploymentDescriptor task : tasks) {
      Terminated end = jobMaster.awaitTermination(task.id());
      assertThat(end.state()).isEqualTo(TaskState.FINISHED);
      assertThat(end.failure()).isNull();
    }
    assertThat(listener.heard()).containsExactly("complete 1");
  }

  @Test
  void aFailingFunctionReportsFailedWithTheUserExceptionAndTheOperatorName() throws Exception {
    StreamEnvironment env = StreamEnvironment.create();
    env.setParallelism(1);
    JobGraph graph =
        graph(
            env,
            env.fromSequence(1, 100)
                .map(new FailurePropagationTest.ThrowAt17())
                .name("Fragile Map")
                .sinkTo(new DiscardingSink<>()));
    assertThat(graph.vertices()).as("source, map and sink chained in one task").hasSize(1);
    String taskName = graph.vertices().get(0).getName();
    List<TaskDeploymentDescriptor> tasks = deploy(graph, false);

    Terminated end = jobMaster.awaitTermination(tasks.get(0).id());

    assertThat(end.state()).isEqualTo(TaskState.FAILED);
    assertThat(end.failure()).isInstanceOf(TaskFailureException.class);
    TaskFailureException failure = (TaskFailureException) end.failure();
    assertThat(failure.getOperatorName()).isEqualTo("Fragile Map");
    assertThat(failure.getTaskName()).isEqualTo(taskName).isNotEqualTo("Fragile Map");
    assertThat(failure.getSubtaskIndex()).isZero();
    assertThat(failure)
        .hasMessageStartingWith("Operator 'Fragile Map' in task '" + taskName + "'")
        .cause()
        .isInstanceOf(FailurePropagationTest.Boom.class)
        .hasMessage("boom at element 17");
    assertThat(end.metrics().vertexName()).isEqualTo(taskName);
  }

  /**
   * Cancelled for a reason (its TaskManager lost the JobManager, say), a subtask reports that
   * reason with its CANCELED end; the second reason given is not the one reported.
   */
  @Test
  void subtasksCancelledForAReasonReportIt() throws Exception {
    StreamEnvironment env = StreamEnvironment.create();
    env.setParallelism(1);
    CollectSink<Long> sink = new CollectSink<>();
    JobGraph graph = graph(env, env.fromSource(UnboundedSource.endless(1), "Endless").sinkTo(sink));
    ExecutionAttemptId task = deploy(graph, false).get(0).id();
    await().atMost(WAIT).until(() -> sink.size() >= 10);

    String why = "TaskManager tm-1 cancelled its tasks: it lost the JobManager at 127.0.0.1:6123";
    taskExecutor.cancelTask(task, why);
    taskExecutor.cancelTask(task, "a later reason");

    Terminated end = jobMaster.awaitTermination(task);
    assertThat(end.state()).isEqualTo(TaskState.CANCELED);
    assertThat(end.failure()).isInstanceOf(CancelTaskException.class).hasMessage(why);
  }

  @Test
  void cancelledSubtasksReportCanceledWithoutAFailure() throws Exception {
    StreamEnvironment env = StreamEnvironment.create();
    env.setParallelism(2);
    CollectSink<Long> sink = new CollectSink<>();
    JobGraph graph =
        graph(
            env,
            env.fromSource(UnboundedSource.endless(1), "Endless")
                .keyBy(n -> n % 7, Types.LONG)
                .sinkTo(sink));
    List<TaskDeploymentDescriptor> tasks = deploy(graph, false);
    await().atMost(WAIT).until(() -> sink.size() >= 10);
    assertThat(jobMaster.reports()).as("an endless job reports nothing while it runs").isEmpty();

    for (TaskDeploymentDescriptor task : tasks) {
      taskExecutor.cancelTask(task.id());
    }

    for (TaskDeploymentDescriptor task : tasks) {
      Terminated end = jobMaster.awaitTermination(task.id());
      assertThat(end.state()).as("%s", task.id()).isEqualTo(TaskState.CANCELED);
      assertThat(end.failure()).as("%s", task.id()).isNull();
      assertThat(end.metrics().vertexName())
          .isEqualTo(graph.vertices().get(task.id().vertex()).getName());
    }
    assertThat(jobMaster.reports(Terminated.class))
        .extracting(Terminated::task)
        .containsExactlyInAnyOrderElementsOf(
            tasks.stream().map(TaskDeploymentDescriptor::id).toList());
    assertThat(taskExecutor.runningTasks()).isEmpty();
  }

  @Test
  void aCheckpointTriggeredAtTheSourceIsAcknowledgedByEverySubtaskAndItsNotificationsArrive()
      throws Exception {
    StreamEnvironment env = StreamEnvironment.create();
    env.setParallelism(1);
    ListeningMap listener = new ListeningMap();
    JobGraph graph =
        graph(
            env,
            env.fromSource(UnboundedSource.endless(1), "Endless")
                .keyBy(n -> n % 7, Types.LONG)
                .map(listener)
                .sinkTo(new DiscardingSink<>()));
    List<TaskDeploymentDescriptor> tasks = deploy(graph, true);
    ExecutionAttemptId source = tasks.get(0).id();
    ExecutionAttemptId mapAndSink = tasks.get(1).id();

    trigger(source, 7);
    Acknowledged sourceAck = jobMaster.awaitAcknowledgement(source, 7);
    Acknowledged mapAck = jobMaster.awaitAcknowledgement(mapAndSink, 7);

    JobVertex sourceVertex = graph.vertices().get(0);
    assertThat(sourceAck.states()).containsOnlyKeys(operatorIds(sourceVertex));
    OperatorSubtaskState splits = sourceAck.states().get(sourceVertex.getHead().getOperatorId());
    assertThat(splits.splits()).as("the source's split").isNotNull();
    assertThat(splits.splits().splits()).hasSize(1);
    assertThat(splits.finished()).isFalse();
    assertThat(sourceAck.statistics().taskName()).isEqualTo(sourceVertex.getName());
    assertThat(sourceAck.statistics().subtaskIndex()).isZero();
    assertThat(mapAck.states()).containsOnlyKeys(operatorIds(graph.vertices().get(1)));
    assertThat(mapAck.statistics().taskName()).isEqualTo(graph.vertices().get(1).getName());

    for (TaskDeploymentDescriptor task : tasks) {
      taskExecutor.notifyCheckpointComplete(task.id(), 7, false);
    }
    assertThat(listener.next()).isEqualTo("complete 7");

    trigger(source, 8);
    jobMaster.awaitAcknowledgement(source, 8);
    jobMaster.awaitAcknowledgement(mapAndSink, 8);
    for (TaskDeploymentDescriptor task : tasks) {
      taskExecutor.notifyCheckpointAborted(task.id(), 8);
    }
    assertThat(listener.next()).isEqualTo("aborted 8");

    assertThat(jobMaster.reports(Terminated.class))
        .as("a checkpoint that is not final ends no subtask")
        .isEmpty();
    assertThat(jobMaster.reports(Declined.class)).isEmpty();
  }

  @Test
  void messagesForAnAttemptThatDoesNotRunHereAreIgnored() throws Exception {
    StreamEnvironment env = StreamEnvironment.create();
    env.setParallelism(1);
    JobGraph graph =
        graph(
            env,
            env.fromSource(UnboundedSource.endless(1), "Endless").sinkTo(new DiscardingSink<>()));
    List<TaskDeploymentDescriptor> tasks = deploy(graph, true);
    ExecutionAttemptId running = tasks.get(0).id();
    ExecutionAttemptId nextAttempt =
        new ExecutionAttemptId(jobId, running.vertex(), running.subtask(), running.attempt() + 1);

    trigger(nextAttempt, 1);
    taskExecutor.notifyCheckpointComplete(nextAttempt, 1, true);
    taskExecutor.notifyCheckpointAborted(nextAttempt, 1);
    taskExecutor.cancelTask(nextAttempt);
    trigger(running, 2);
    Acknowledged ack = jobMaster.awaitAcknowledgement(running, 2);

    assertThat(jobMaster.reports())
        .as("checkpoint 1 went to an attempt not running here: neither acknowledged nor declined")
        .containsExactly(ack);
    assertThat(taskExecutor.runningTasks())
        .singleElement()
        .extracting(StreamTask::getState)
        .isEqualTo(TaskState.RUNNING);
  }

  @Test
  void aSnapshotTheCheckpointStorageRefusesIsDeclinedAndTheSubtaskRunsOn() throws Exception {
    StreamEnvironment env = StreamEnvironment.create();
    env.setParallelism(1);
    env.getConfiguration().set(CheckpointingOptions.JOBMANAGER_MAX_STATE_SIZE, new MemorySize(1));
    JobGraph graph =
        graph(
            env,
            env.fromSource(UnboundedSource.endless(1), "Endless").sinkTo(new DiscardingSink<>()));
    List<TaskDeploymentDescriptor> tasks = deploy(graph, true);
    ExecutionAttemptId source = tasks.get(0).id();

    trigger(source, 3);
    Declined declined = jobMaster.awaitDecline(source, 3);

    assertThat(declined.cause())
        .isInstanceOf(StateSizeLimitException.class)
        .hasMessageContaining("of checkpoint 3 ")
        .hasMessageContaining("execution.checkpointing.jobmanager.max-state-size");
    assertThat(jobMaster.reports(Acknowledged.class)).isEmpty();
    assertThat(jobMaster.reports(Terminated.class))
        .as("a declined checkpoint does not fail the subtask")
        .isEmpty();
    assertThat(taskExecutor.runningTasks())
        .singleElement()
        .extracting(StreamTask::getState)
        .isEqualTo(TaskState.RUNNING);
  }

  @Test
  void eachSubtaskIsReportedToTheMetricsWhileItRunsWithItsCountsWaitsAndLatestCheckpoint()
      throws Exception {
    StreamEnvironment env = StreamEnvironment.create();
    env.setParallelism(1);
    // Small buffers: the barrier waits behind a few hundred slow records, not thousands.
    env.getConfiguration().set(CoreOptions.NETWORK_BUFFER_SIZE, new MemorySize(1024));
    JobGraph graph =
        graph(
            env,
            env.fromSource(UnboundedSource.endless(0), "Endless")
                .keyBy(n -> n % 7, Types.LONG)
                .map(new SlowMap())
                .sinkTo(new DiscardingSink<>()));
    List<TaskDeploymentDescriptor> tasks = deploy(graph, true);
    ExecutionAttemptId sourceId = tasks.get(0).id();
    ExecutionAttemptId mapId = tasks.get(1).id();

    await().atMost(WAIT).until(() -> reported.size() == 2);
    TaskIOMetrics source = metricsOf(graph, sourceId);
    TaskIOMetrics map = metricsOf(graph, mapId);
    assertThat(source).isNotNull();
    assertThat(map).isNotNull();
    // The source outruns the slow map: it waits for credit, the map never for input.
    await().atMost(WAIT).until(() -> source.backPressuredTime().totalNanos(System.nanoTime()) > 0);
    await().atMost(WAIT).until(() -> map.numRecordsIn() > 0 && source.numRecordsOut() > 0);
    assertThat(source.numRecordsIn()).as("a source reads no records of other tasks").isZero();
    assertThat(source.numBytesIn()).isZero();
    assertThat(source.numBytesOut()).as("it sent the buffers the map read").isPositive();
    await().atMost(WAIT).until(() -> map.numBytesIn() > 0);
    assertThat(map.numBytesOut()).as("the map is chained to the sink").isZero();

    trigger(sourceId, 1);
    Acknowledged fromMap = jobMaster.awaitAcknowledgement(mapId, 1);

    assertThat(map.checkpointStartDelayNanos())
        .isEqualTo(fromMap.statistics().startDelayMillis() * 1_000_000);
    assertThat(map.checkpointAlignmentNanos())
        .isEqualTo(fromMap.statistics().alignmentDurationMillis() * 1_000_000);
    assertThat(fromMap.statistics().lastBarrierFrom())
        .as("the channel whose barrier ended the map's alignment")
        .isEqualTo("Source: Endless (1/1)");

    taskExecutor.cancelTask(sourceId);
    taskExecutor.cancelTask(mapId);
    jobMaster.awaitTermination(sourceId);
    jobMaster.awaitTermination(mapId);
    assertThat(reported).as("unregistered when they ended").isEmpty();
  }

  @Test
  void aSubtaskWithoutInputCountsItsWaitAsIdleWhileItWaits() throws Exception {
    StreamEnvironment env = StreamEnvironment.create();
    env.setParallelism(1);
    JobGraph graph =
        graph(
            env,
            env.fromSource(UnboundedSource.emitting(1, 1), "One")
                .keyBy(n -> n % 7, Types.LONG)
                .sinkTo(new DiscardingSink<>()));
    List<TaskDeploymentDescriptor> tasks = deploy(graph, false);

    await().atMost(WAIT).until(() -> reported.size() == 2);
    TaskIOMetrics sink = metricsOf(graph, tasks.get(1).id());
    await().atMost(WAIT).until(() -> sink.numRecordsIn() == 1);
    long idle = sink.idleTime().totalNanos(System.nanoTime());
    await()
        .atMost(WAIT)
        .alias("the wait under way counts before it ends")
        .until(() -> sink.idleTime().totalNanos(System.nanoTime()) > idle);
    assertThat(sink.backPressuredTime().totalNanos(System.nanoTime())).isZero();
  }

  private TaskIOMetrics metricsOf(JobGraph graph, ExecutionAttemptId id) {
    return reported.get(
        new TaskScope(
            jobId,
            graph.jobName(),
            graph.vertices().get(id.vertex()).getName(),
            id.subtask(),
            id.attempt()));
  }

  /** Takes a millisecond per record. */
  @Test
  void everyThreadThatRunsTheJobsCodeHasTheUserClassLoaderAsContextClassLoader() throws Exception {
    ClassLoader userClassLoader =
        new URLClassLoader("job-classes", new URL[0], getClass().getClassLoader());
    TaskExecutor executor =
        new TaskExecutor(jobMaster, null, TaskMetricsReporter.NONE, userClassLoader);
    StreamEnvironment env = StreamEnvironment.create();
    env.setParallelism(1);
    LoaderRecordingMap map = new LoaderRecordingMap();
    DataStreamSink<Long> sink =
        env.fromSource(UnboundedSource.endless(1), "Endless")
            .keyBy(n -> n % 7, Types.LONG)
            .map(map)
            .sinkTo(new DiscardingSink<>());
    JobGraph graph =
        JobGraphBuilder.build(
            new Pipeline(
                "class-loading-test", List.of(sink.getTransformation()), env.getConfiguration()));
    List<TaskDeploymentDescriptor> tasks = freshAttempt(graph, jobId, 0, true);
    ClassLoader callers = Thread.currentThread().getContextClassLoader();
    try {
      executor.submitTasks(tasks);
      assertThat(Thread.currentThread().getContextClassLoader())
          .as("the deploying thread's own, put back")
          .isSameAs(callers);
      assertThat(map.seen())
          .as("what open() saw")
          .containsExactly(userClassLoader, userClassLoader);

      executor.triggerCheckpoint(
          tasks.get(0).id(),
          1,
          System.currentTimeMillis(),
          CheckpointOptions.checkpoint(BarrierHandler.Alignment.ALIGNED));
      for (TaskDeploymentDescriptor task : tasks) {
        jobMaster.awaitAcknowledgement(task.id(), 1);
      }

      List<String> names = new ArrayList<>();
      for (JobVertex vertex : graph.vertices()) {
        names.add(vertex.getName() + " (1/1)#0");
      }
      names.add("weir-timer-class-loading-test");
      names.add("weir-snapshot-class-loading-test");
      Map<String, ClassLoader> loaders = new HashMap<>();
      for (Thread t : Thread.getAllStackTraces().keySet()) {
        if (names.contains(t.getName())) {
          loaders.put(t.getName(), t.getContextClassLoader());
        }
      }
      assertThat(loaders)
          .as("the subtasks' threads, the timer and the uploads")
          .containsOnlyKeys(names);
      assertThat(loaders.values()).allSatisfy(l -> assertThat(l).isSameAs(userClassLoader));
    } finally {
      List<StreamTask> left = executor.runningTasks();
      executor.close();
      for (StreamTask task : left) {
        task.getTermination().get(WAIT.toSeconds(), TimeUnit.SECONDS);
      }
      executor.releaseJob(jobId);
    }
  }

  static final class SlowMap implements MapFunction<Long, Long> {
    private static final long serialVersionUID = 1L;

    @Override
    public Long map(Long value) throws Exception {
      Thread.sleep(1);
      return value;
    }
  }

  // ------------------------------------------------------------------ helpers

  private static JobGraph graph(StreamEnvironment env, DataStreamSink<?> sink) {
    return JobGraphBuilder.build(
        new Pipeline(
            "task-executor-test", List.of(sink.getTransformation()), env.getConfiguration()));
  }

  /** Submits a fresh first attempt of {@code graph}; its descriptors, vertex by vertex. */
  private List<TaskDeploymentDescriptor> deploy(JobGraph graph, boolean checkpointing)
      throws Exception {
    List<TaskDeploymentDescriptor> descriptors = freshAttempt(graph, jobId, 0, checkpointing);
    taskExecutor.submitTasks(descriptors);
    return descriptors;
  }

  /**
   * Every subtask of {@code graph} as the scheduler deploys an attempt that restores nothing: a
   * source's splits are created and dealt round robin, aligned exactly-once checkpoints.
   */
  private static List<TaskDeploymentDescriptor> freshAttempt(
      JobGraph graph, String jobId, int attempt, boolean checkpointing) throws Exception {
    TaskDeploymentDescriptor.Checkpointing settings =
        new TaskDeploymentDescriptor.Checkpointing(
            checkpointing, true, BarrierHandler.Alignment.ALIGNED, 0);
    List<TaskDeploymentDescriptor> descriptors = new ArrayList<>();
    for (JobVertex vertex : graph.vertices()) {
      List<List<StateElement>> splits = splits(vertex);
      for (int i = 0; i < vertex.getParallelism(); i++) {
        descriptors.add(
            new TaskDeploymentDescriptor(
                new ExecutionAttemptId(jobId, vertex.getIndex(), i, attempt),
                graph,
                settings,
                TaskRestore.fresh(new TaskRestore.AssignedSplits(splits.get(i), List.of()))));
      }
    }
    return descriptors;
  }

  /** Per subtask of {@code vertex}, the splits it reads, serialized as a checkpoint has them. */
  @SuppressWarnings({"unchecked", "rawtypes"})
  private static List<List<StateElement>> splits(JobVertex vertex) throws Exception {
    List<List<StateElement>> perSubtask = new ArrayList<>();
    for (int i = 0; i < vertex.getParallelism(); i++) {
      perSubtask.add(new ArrayList<>());
    }
    if (vertex.isSource()) {
      Source source = ((SourceTransformation<?>) vertex.getHead().getTransformation()).getSource();
      List<Object> all = source.createSplits(vertex.getParallelism());
      for (int i = 0; i < all.size(); i++) {
        perSubtask
            .get(i % vertex.getParallelism())
            .add(
                new StateElement.Inline(
                    SourceStreamTask.serializeSplit(all.get(i), source.getSplitSerializer())));
      }
    }
    return perSubtask;
  }

  private void trigger(ExecutionAttemptId source, long checkpointId) {
    taskExecutor.triggerCheckpoint(
        source,
        checkpointId,
        System.currentTimeMillis(),
        CheckpointOptions.checkpoint(BarrierHandler.Alignment.ALIGNED));
  }

  private static List<String> operatorIds(JobVertex vertex) {
    return vertex.getChain().stream().map(StreamNode::getOperatorId).toList();
  }

  /**
   * An identity map that records, in {@code open}, its thread's context class loader and its
   * runtime context's user-code class loader, in a JVM-wide map under the id the original was made
   * with (the runtime runs a copy).
   */
  static final class LoaderRecordingMap extends RichMapFunction<Long, Long> {
    private static final long serialVersionUID = 1L;

    private static final Map<String, List<ClassLoader>> SEEN = new ConcurrentHashMap<>();

    private final String id = UUID.randomUUID().toString();

    LoaderRecordingMap() {
      SEEN.put(id, new CopyOnWriteArrayList<>());
    }

    @Override
    public void open(OpenContext openContext) {
      SEEN.get(id).add(Thread.currentThread().getContextClassLoader());
      SEEN.get(id).add(getRuntimeContext().getUserCodeClassLoader());
    }

    @Override
    public Long map(Long value) {
      return value;
    }

    /** The loaders recorded, waiting until open() ran. */
    List<ClassLoader> seen() {
      await().atMost(WAIT).until(() -> SEEN.get(id).size() == 2);
      return List.copyOf(SEEN.get(id));
    }
  }

  /**
   * An identity map that records the checkpoint notifications its subtasks hear. The runtime runs a
   * copy of it, so what they heard is kept in a JVM-wide map under the id the original was made
   * with.
   */
  static final class ListeningMap implements MapFunction<Long, Long>, CheckpointListener {
    private static final long serialVersionUID = 1L;

    private static final Map<String, BlockingQueue<String>> HEARD = new ConcurrentHashMap<>();

    private final String id = UUID.randomUUID().toString();

    ListeningMap() {
      HEARD.put(id, new LinkedBlockingQueue<>());
    }

    @Override
    public Long map(Long value) {
      return value;
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) {
      HEARD.get(id).add("complete " + checkpointId);
    }

    @Override
    public void notifyCheckpointAborted(long checkpointId) {
      HEARD.get(id).add("aborted " + checkpointId);
    }

    /** The next notification heard, waiting for it; null if none came within the wait. */
    String next() throws InterruptedException {
      return HEARD.get(id).poll(WAIT.toSeconds(), TimeUnit.SECONDS);
    }

    /** The notifications heard and not yet taken with {@link #next}, oldest first. */
    List<String> heard() {
      return List.copyOf(HEARD.get(id));
    }
  }
}
