package io.weir.cluster.rest.messages;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;

/**
 * {@code POST /jobs/:jobid/savepoints}, Flink's fields.
 *
 * @param targetDirectory where to write it; null: the job's {@code
 *     execution.checkpointing.savepoint-dir}
 * @param cancelJob whether to cancel the job once it is written
 */
public record SavepointTriggerRequest(
    @JsonInclude(JsonInclude.Include.NON_NULL)
        @JsonProperty("target-directory")
        @JsonDeserialize(using = JsonStringOnly.class)
        String targetDirectory,
    @JsonProperty("cancel-job") boolean cancelJob) {}
