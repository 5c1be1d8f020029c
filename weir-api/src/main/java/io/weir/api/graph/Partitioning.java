package io.weir.api.graph;

/** How the elements of an edge are distributed over the consumer's subtasks. */
public sealed interface Partitioning {

  /** Subtask i sends to subtask i; requires equal parallelism, and chains when possible. */
  record Forward() implements Partitioning {}

  /** Round robin over all consumers. */
  record Rebalance() implements Partitioning {}

  /** Every element to every consumer. */
  record Broadcast() implements Partitioning {}

  /** A uniformly random consumer for every element ({@code shuffle()}). */
  record Shuffle() implements Partitioning {}

  /**
   * Round robin over a subset of the consumers, as Flink's {@code rescale()}: with {@code p}
   * producers and {@code c} consumers, each producer feeds the consumers of its share (when {@code
   * p < c}), or shares one consumer with its neighbours (when {@code p >= c}). A pointwise
   * connection: each consumer is wired only to its producers.
   */
  record Rescale() implements Partitioning {}

  /** Every element to the consumer's first subtask ({@code global()}). */
  record Global() implements Partitioning {}

  /** By key group of the element's key: the consumer that owns the key group. */
  record Hash<T, K>(KeyContext<T, K> keyContext) implements Partitioning {}
}
