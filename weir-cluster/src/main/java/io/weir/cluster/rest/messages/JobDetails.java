package io.weir.cluster.rest.messages;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.Map;

/**
 * {@code GET /jobs/:jobid}: a job's summary (the fields of {@link JobSummary}) and its exception
 * history.
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
    JobExceptions exceptions) {

  /** {@code summary} with {@code exceptions}. */
  public static JobDetails of(JobSummary summary, JobExceptions exceptions) {
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
        exceptions);
  }
}
