package io.weir.api.graph;

/**
 * Whether an operator may run in one task with the operator before it and the one after it, as
 * Flink's {@code ChainingStrategy}. Chaining also needs a forward edge, equal parallelism and the
 * same slot sharing group.
 */
public enum ChainingStrategy {
  /** Chains with its predecessor and successor where the edge allows: the default. */
  ALWAYS,
  /** Starts a new chain ({@code startNewChain()}): not chained to its predecessor. */
  HEAD,
  /** Chained to neither neighbour ({@code disableChaining()}). */
  NEVER
}
