package io.weir.cluster.rest.messages;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.Map;

/**
 * A job as {@code GET /jobs/overview} lists it, with Flink's field names where Flink has the field.
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
 */
public record JobSummary(
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
    @JsonInclude(JsonInclude.Include.NON_NULL) String failure) {}
