package io.weir.cluster.rest.messages;

import java.util.List;

/**
 * {@code GET /jobs}: every job's id and status (Flink's {@code JobIdsWithStatusOverview}).
 *
 * @param jobs the jobs
 */
public record JobsResponse(List<JobIdWithStatus> jobs) {

  /**
   * One job.
   *
   * @param id its id
   * @param status its {@code JobStatus}
   */
  public record JobIdWithStatus(String id, String status) {}
}
