package io.weir.cluster.rest.messages;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.Map;

/** {@code GET /jobs/:jobid/config}, Flink's fields: how the job runs. */
public record JobConfigInfo(
    String jid, String name, @JsonProperty("execution-config") ExecutionConfig executionConfig) {

  /**
   * @param restartStrategy the restart strategy, described
   * @param jobParallelism the job's default parallelism
   * @param objectReuse whether records are handed on without copying
   * @param userConfig every setting of the job (the cluster secret left out)
   */
  public record ExecutionConfig(
      @JsonProperty("restart-strategy") String restartStrategy,
      @JsonProperty("job-parallelism") int jobParallelism,
      @JsonProperty("object-reuse-mode") boolean objectReuse,
      @JsonProperty("user-config") Map<String, String> userConfig) {}
}
