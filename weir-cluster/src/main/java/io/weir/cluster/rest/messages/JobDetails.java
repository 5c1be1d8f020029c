package io.weir.cluster.rest.messages;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;
import java.util.Map;

/**
 * {@code GET /jobs/:jobid}: a job's summary (the fields of {@link JobSummary}), its exception
 * history, and as Flink's {@code JobDetailsInfo} its vertices and its plan.
 *
 * @param jid the job's id
 * @param name its name
 * @param state its {@code JobStatus}
 * @param startTime when it was submitted, epoch millis
 * @param endTime when it ended, or -1 while it runs
 * @param duration from its start until it ended, or until now
 * @param now the JobManager's clock when it answered
 * @param entryClass the class whose {@code main} submitted it
 * @param jarId the jar it came from
 * @param metrics its accumulated metrics once it finished, else absent
 * @param failure why it failed, once it has, else absent
 * @param exceptions what {@code GET /jobs/:jobid/exceptions} answers
 * @param vertices its vertices with their subtasks' states and counters (Flink's)
 * @param statusCounts how many vertices are in each of Flink's execution states
 * @param timestamps when the job first reached each of Flink's job states (0: never)
 * @param plan its vertices and the edges between them, as {@code GET /jobs/:jobid/plan} serves them
 *     under its {@code plan} key
 */
public record JobDetails(
    String jid,
    String name,
    String state,
    @JsonProperty("start-time") long startTime,
    @JsonProperty("end-time") long endTime,
    long duration,
    long now,
    String entryClass,
    String jarId,
    @JsonInclude(JsonInclude.Include.NON_NULL) Map<String, Long> metrics,
    @JsonInclude(JsonInclude.Include.NON_NULL) String failure,
    JobExceptions exceptions,
    List<JobVertexInfo.Summary> vertices,
    @JsonProperty("status-counts") Map<String, Integer> statusCounts,
    Map<String, Long> timestamps,
    JobPlan.Plan plan) {

  /** {@code summary} with {@code exceptions}, the plan and the vertices. */
  public static JobDetails of(
      JobSummary summary,
      JobExceptions exceptions,
      JobPlan.Plan plan,
      List<JobVertexInfo.Summary> vertices,
      Map<String, Integer> statusCounts,
      Map<String, Long> timestamps) {
    return new JobDetails(
        summary.jid(),
        summary.name(),
        summary.state(),
        summary.startTime(),
        summary.endTime(),
        summary.duration(),
        summary.now(),
        summary.entryClass(),
        summary.jarId(),
        summary.metrics(),
        summary.failure(),
        exceptions,
        vertices,
        statusCounts,
        timestamps,
        plan);
  }
}
