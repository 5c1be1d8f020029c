package io.weir.cluster;

import io.weir.api.JobClient;
import io.weir.api.graph.Pipeline;
import io.weir.cluster.client.ClusterExecutor;
import io.weir.cluster.data.NettyDataPlane;
import io.weir.cluster.jobmanager.SlotPlacement;
import io.weir.runtime.checkpoint.CheckpointOptions;
import io.weir.runtime.graph.JobGraph;
import io.weir.runtime.graph.JobGraphBuilder;
import io.weir.runtime.graph.JobVertex;
import io.weir.runtime.jobmaster.JobMaster;
import io.weir.runtime.jobmaster.JobMasterGateway;
import io.weir.runtime.taskexecutor.ExecutionAttemptId;
import io.weir.runtime.taskexecutor.SubtaskLocations;
import io.weir.runtime.taskexecutor.SubtaskSample;
import io.weir.runtime.taskexecutor.TaskDeploymentDescriptor;
import io.weir.runtime.taskexecutor.TaskExecutor;
import io.weir.runtime.taskexecutor.TaskExecutorGateway;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Several TaskManagers in one JVM, as Flink's MiniCluster runs them for tests: each has its own
 * {@link TaskExecutor} per job and its own Netty data plane on 127.0.0.1, so channels between
 * subtasks of different TaskManagers cross real TCP connections with the cluster's wire format,
 * while the job master and the test's own objects stay in one process. An attempt's slots are
 * placed as a cluster with {@code cluster.evenly-spread-out-slots} places them ({@link
 * SlotPlacement}, every TaskManager offering as many slots as the attempt takes): spread over all
 * TaskManagers, each with consecutive slots, slot i running subtask i of every vertex.
 *
 * <p>{@link #setAsContext()} makes {@code StreamEnvironment.execute} on this thread (and threads it
 * starts) run here, so that an unchanged job or test runs on this deployment.
 */
public final class MiniCluster implements AutoCloseable {

  private final List<NettyDataPlane> planes = new ArrayList<>();

  /** Starts {@code taskManagers} data planes on 127.0.0.1. */
  public MiniCluster(int taskManagers) throws IOException {
    if (taskManagers < 1) {
      throw new IllegalArgumentException(
          "A mini cluster needs at least one TaskManager, not " + taskManagers);
    }
    try {
      for (int i = 0; i < taskManagers; i++) {
        planes.add(new NettyDataPlane("127.0.0.1", 0, "127.0.0.1", null));
      }
    } catch (IOException e) {
      close();
      throw e;
    }
  }

  public int numberOfTaskManagers() {
    return planes.size();
  }

  private final AtomicInteger submitted = new AtomicInteger();

  /** Jobs submitted so far. */
  public int submittedJobs() {
    return submitted.get();
  }

  /** Runs {@code pipeline}: one job master, and the job's subtasks over the TaskManagers. */
  public JobClient submit(Pipeline pipeline) {
    submitted.incrementAndGet();
    JobGraph graph = JobGraphBuilder.build(pipeline);
    JobMaster job = new JobMaster(graph, Gateway::new);
    job.start();
    return job;
  }

  /** From now on {@code execute} of a pipeline on this thread runs it here. */
  public void setAsContext() {
    ClusterExecutor.setContext(this::submit);
  }

  /** Undoes {@link #setAsContext()}. */
  public static void clearContext() {
    ClusterExecutor.clearContext();
  }

  @Override
  public void close() {
    for (NettyDataPlane plane : planes) {
      plane.close();
    }
    planes.clear();
  }

  /** One job's task executors, one per TaskManager, behind the job master's gateway. */
  private final class Gateway implements TaskExecutorGateway {
    private final List<TaskExecutor> executors = new ArrayList<>();
    private final Map<ExecutionAttemptId, TaskExecutor> placed = new ConcurrentHashMap<>();

    Gateway(JobMasterGateway jobMaster) {
      for (NettyDataPlane plane : planes) {
        executors.add(new TaskExecutor(jobMaster, plane));
      }
    }

    @Override
    public CompletableFuture<List<SubtaskSample>> sampleSubtasks(String jobId) {
      List<SubtaskSample> samples = new ArrayList<>();
      for (int i = 0; i < executors.size(); i++) {
        String name = "minicluster-" + i;
        executors.get(i).sampleSubtasks(jobId).join().forEach(s -> samples.add(s.at(name, name)));
      }
      return CompletableFuture.completedFuture(samples);
    }

    @Override
    public void submitTasks(List<TaskDeploymentDescriptor> tasks) {
      if (tasks.isEmpty()) {
        return;
      }
      JobGraph graph = tasks.get(0).graph();
      int slots = SlotPlacement.slotsFor(graph);
      List<SlotPlacement.Offer<Integer>> offers = new ArrayList<>();
      for (int i = 0; i < executors.size(); i++) {
        offers.add(new SlotPlacement.Offer<>(i, slots));
      }
      SlotPlacement<Integer> placement = SlotPlacement.place(slots, offers, true);
      Map<Integer, List<String>> byVertex = new HashMap<>();
      for (JobVertex vertex : graph.vertices()) {
        byVertex.put(
            vertex.getIndex(), placement.addresses(graph, vertex, tm -> planes.get(tm).address()));
      }
      SubtaskLocations locations = new SubtaskLocations(byVertex);
      int attempt = tasks.get(0).id().attempt();
      placed.keySet().removeIf(id -> id.attempt() < attempt);
      placement
          .byTaskManager(tasks)
          .forEach(
              (tm, share) -> {
                TaskExecutor executor = executors.get(tm);
                share.forEach(tdd -> placed.put(tdd.id(), executor));
                executor.submitTasks(share.stream().map(tdd -> tdd.at(locations)).toList());
              });
    }

    /** Its TaskManager as {@link #sampleSubtasks} names it, with its data plane's address. */
    @Override
    public String location(ExecutionAttemptId task) {
      int tm = executors.indexOf(placed.get(task));
      return tm < 0 ? null : "minicluster-" + tm + " (" + planes.get(tm).address() + ")";
    }

    @Override
    public void triggerCheckpoint(
        ExecutionAttemptId task, long checkpointId, long timestamp, CheckpointOptions options) {
      TaskExecutor executor = placed.get(task);
      if (executor != null) {
        executor.triggerCheckpoint(task, checkpointId, timestamp, options);
      }
    }

    @Override
    public void notifyCheckpointComplete(
        ExecutionAttemptId task, long checkpointId, boolean isFinal) {
      TaskExecutor executor = placed.get(task);
      if (executor != null) {
        executor.notifyCheckpointComplete(task, checkpointId, isFinal);
      }
    }

    @Override
    public void notifyCheckpointAborted(ExecutionAttemptId task, long checkpointId) {
      TaskExecutor executor = placed.get(task);
      if (executor != null) {
        executor.notifyCheckpointAborted(task, checkpointId);
      }
    }

    @Override
    public void cancelTask(ExecutionAttemptId task) {
      TaskExecutor executor = placed.get(task);
      if (executor != null) {
        executor.cancelTask(task);
      }
    }

    @Override
    public void releaseJob(String jobId) {
      for (TaskExecutor executor : executors) {
        executor.releaseJob(jobId);
      }
    }
  }
}
