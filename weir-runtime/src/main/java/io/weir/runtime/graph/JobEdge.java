package io.weir.runtime.graph;

/**
 * An edge between two tasks, carried by the network stack.
 *
 * @param producer the task that produces
 * @param consumer the task that consumes
 * @param streamEdge the operator edge behind it: its source node is inside the producer's chain and
 *     its target node is the consumer's head
 */
public record JobEdge(JobVertex producer, JobVertex consumer, StreamEdge streamEdge) {}
