package io.weir.cluster.rest.messages;

/**
 * {@code GET /health} and {@code GET /health/leader}.
 *
 * @param status {@code UP} while the process serves
 * @param leader whether this JobManager leads the cluster (always, without high availability)
 */
public record HealthResponse(String status, boolean leader) {}
