package io.weir.api.graph;

/** How the elements of an edge are distributed over the consumer's subtasks. */
public sealed interface Partitioning {

  /** Subtask i sends to subtask i; requires equal parallelism, and chains when possible. */
  record Forward() implements Partitioning {}

  /** Round robin over all consumers. */
  record Rebalance() implements Partitioning {}

  /** Every element to every consumer. */
  record Broadcast() implements Partitioning {}

  /** By key group of the element's key: the consumer that owns the key group. */
  record Hash<T, K>(KeyContext<T, K> keyContext) implements Partitioning {}
}
