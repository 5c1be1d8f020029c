package io.weir.cluster.rest.messages;

import java.util.List;

/**
 * {@code GET /jobs/overview}: every job's summary.
 *
 * @param jobs the jobs
 */
public record JobsOverview(List<JobSummary> jobs) {}
