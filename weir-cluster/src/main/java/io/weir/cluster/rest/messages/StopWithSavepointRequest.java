package io.weir.cluster.rest.messages;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;

/**
 * {@code POST /jobs/:jobid/stop}, Flink's fields.
 *
 * @param targetDirectory where to write the savepoint; null: the job's {@code
 *     execution.checkpointing.savepoint-dir}
 * @param drain whether to end the job's input (event time to its end) before the savepoint
 */
public record StopWithSavepointRequest(
    @JsonInclude(JsonInclude.Include.NON_NULL) @JsonDeserialize(using = JsonStringOnly.class)
        String targetDirectory,
    boolean drain) {}
