package io.weir.runtime.jobmaster;

import io.weir.api.JobStatus;
import io.weir.runtime.taskexecutor.ExecutionAttemptId;
import io.weir.runtime.taskexecutor.SubtaskSample;
import io.weir.runtime.taskexecutor.TaskExecutorGateway;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a job master answers about its subtasks when asked (REST's vertices and back-pressure): the
 * scheduler's view of the attempt joined with what the task executors sample on demand, and the
 * recent shares of idle, back-pressured and busy time between samples.
 */
final class SubtaskSampling {

  private static final Logger LOG = LoggerFactory.getLogger(SubtaskSampling.class);

  private final String jobId;
  private final String jobName;
  private final Scheduler scheduler;
  private final TaskExecutorGateway taskExecutor;
  private final RecentTimeShares timeShares = new RecentTimeShares();

  SubtaskSampling(
      String jobId, String jobName, Scheduler scheduler, TaskExecutorGateway taskExecutor) {
    this.jobId = jobId;
    this.jobName = jobName;
    this.scheduler = scheduler;
    this.taskExecutor = taskExecutor;
  }

  /**
   * Every subtask of the current attempt, by vertex and index, with the counters its task executor
   * reports now: records and bytes, and the time idle, back-pressured and busy, in total and as
   * shares of the recent window (see {@link RecentTimeShares}). A subtask whose task executor does
   * not answer in time has no counters ({@link SubtaskStatus#io()} null); an ended one has the
   * records and bytes it reported at its end. Once the job ended ({@code terminalStatus} set) no
   * task executor is asked. Any thread.
   */
  CompletableFuture<List<SubtaskStatus>> subtasks(JobStatus terminalStatus) {
    List<ExecutionAttemptId> deployed = scheduler.deployed();
    CompletableFuture<List<SubtaskSample>> sampled =
        terminalStatus != null
            ? CompletableFuture.completedFuture(List.of())
            : taskExecutor.sampleSubtasks(jobId);
    return sampled
        .exceptionally(
            e -> {
              LOG.debug("Job '{}': sampling the subtasks failed", jobName, e);
              return List.of();
            })
        .thenApply(samples -> subtasks(deployed, samples, terminalStatus));
  }

  private List<SubtaskStatus> subtasks(
      List<ExecutionAttemptId> deployed, List<SubtaskSample> samples, JobStatus terminalStatus) {
    Map<ExecutionAttemptId, SubtaskSample> byId = new HashMap<>();
    samples.forEach(s -> byId.put(s.id(), s));
    Map<ExecutionAttemptId, Scheduler.Ended> ended = scheduler.endedTasks();
    JobStatus job = terminalStatus != null ? terminalStatus : scheduler.status();
    boolean stopping = job == JobStatus.CANCELLING || job == JobStatus.FAILING;
    long attemptStart = scheduler.attemptStartMillis();
    timeShares.retain(deployed);
    List<SubtaskStatus> subtasks = new ArrayList<>();
    for (ExecutionAttemptId id : deployed) {
      Scheduler.Ended end = ended.get(id);
      SubtaskSample sample = byId.get(id);
      if (end != null) {
        var m = end.metrics();
        subtasks.add(
            new SubtaskStatus(
                id.vertex(),
                id.subtask(),
                id.attempt(),
                end.state().name(),
                attemptStart,
                end.endTimeMillis(),
                "-",
                "-",
                new SubtaskStatus.Io(
                    m.recordsIn(),
                    m.recordsOut(),
                    m.bytesIn(),
                    m.bytesOut(),
                    0,
                    0,
                    0,
                    Double.NaN,
                    Double.NaN,
                    Double.NaN,
                    Double.NaN,
                    Double.NaN,
                    Double.NaN,
                    Double.NaN,
                    Long.MIN_VALUE,
                    Long.MIN_VALUE,
                    Map.of()),
                null));
      } else if (sample != null) {
        RecentTimeShares.Shares shares = timeShares.add(sample);
        long age = sample.ageNanos() / 1_000_000;
        long idle = sample.idleNanos() / 1_000_000;
        long backPressured = sample.backPressuredNanos() / 1_000_000;
        String status =
            stopping
                ? "CANCELING"
                : switch (sample.state()) {
                  case CREATED -> "DEPLOYING";
                  case RUNNING -> sample.initialized() ? "RUNNING" : "INITIALIZING";
                  default -> sample.state().name();
                };
        subtasks.add(
            new SubtaskStatus(
                id.vertex(),
                id.subtask(),
                id.attempt(),
                status,
                sample.startTimeMillis(),
                -1,
                sample.taskManagerId(),
                sample.endpoint(),
                new SubtaskStatus.Io(
                    sample.recordsIn(),
                    sample.recordsOut(),
                    sample.bytesIn(),
                    sample.bytesOut(),
                    idle,
                    backPressured,
                    Math.max(0, age - idle - backPressured),
                    shares.idle(),
                    shares.backPressured(),
                    shares.busy(),
                    shares.recordsInPerSecond(),
                    shares.recordsOutPerSecond(),
                    shares.bytesInPerSecond(),
                    shares.bytesOutPerSecond(),
                    sample.inputWatermark(),
                    sample.outputWatermark(),
                    sample.operatorMetrics()),
                sample.restore()));
      } else {
        // Its task executor did not answer (or not yet has it): the state the job master knows,
        // SCHEDULED while it waits for slots (as Flink shows it), not RUNNING.
        String status =
            stopping
                ? "CANCELING"
                : job == JobStatus.RECONCILING
                    ? "RECONCILING"
                    : switch (taskExecutor.placement(id)) {
                      case SCHEDULED -> "SCHEDULED";
                      case DEPLOYING -> "DEPLOYING";
                      case DEPLOYED -> "RUNNING";
                    };
        subtasks.add(
            new SubtaskStatus(
                id.vertex(),
                id.subtask(),
                id.attempt(),
                status,
                attemptStart,
                -1,
                "-",
                "-",
                null,
                null));
      }
    }
    subtasks.sort(
        java.util.Comparator.comparingInt(SubtaskStatus::vertex)
            .thenComparingInt(SubtaskStatus::subtask));
    return subtasks;
  }
}
