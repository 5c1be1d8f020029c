package io.weir.cluster.rest.messages;

/**
 * {@code PATCH /jobs/:jobid} or {@code POST /jobs/:jobid/cancel}: the cancellation has started.
 *
 * @param jobid the job
 * @param status {@code CANCELLING}
 */
public record CancelJobResponse(String jobid, String status) {}
