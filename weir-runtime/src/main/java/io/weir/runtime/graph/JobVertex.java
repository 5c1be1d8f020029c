package io.weir.runtime.graph;

import java.util.ArrayList;
import java.util.List;

/**
 * A chain of operators that runs as one task per parallel subtask: records pass between its
 * operators as method calls, with no serialization and no thread hop.
 */
public final class JobVertex {

  private final int index;
  private final List<StreamNode> chain = new ArrayList<>();
  final List<JobEdge> inputs = new ArrayList<>();
  final List<JobEdge> outputs = new ArrayList<>();

  JobVertex(int index, StreamNode head) {
    this.index = index;
    chain.add(head);
  }

  public int getIndex() {
    return index;
  }

  public StreamNode getHead() {
    return chain.get(0);
  }

  /** The operators, head first, each after the operator that feeds it. */
  public List<StreamNode> getChain() {
    return chain;
  }

  void addChained(StreamNode node) {
    chain.add(node);
  }

  public boolean contains(StreamNode node) {
    return chain.contains(node);
  }

  public int getParallelism() {
    return getHead().getParallelism();
  }

  /**
   * The number of key groups of the vertex's keyed state: its head's, since a keyed operator is
   * always the head of its chain (its input is partitioned by key).
   */
  public int getMaxParallelism() {
    return getHead().getMaxParallelism();
  }

  /** The slot sharing group of every operator of the chain. */
  public String getSlotSharingGroup() {
    return getHead().getSlotSharingGroup();
  }

  /** Flink's form: {@code "Source: Sequence Source -> Map"}. */
  public String getName() {
    StringBuilder name = new StringBuilder();
    for (StreamNode node : chain) {
      if (name.length() > 0) {
        name.append(" -> ");
      }
      name.append(node.isSource() ? "Source: " + node.getName() : node.getName());
    }
    return name.toString();
  }

  public boolean isSource() {
    return getHead().isSource();
  }

  public List<JobEdge> getInputs() {
    return inputs;
  }

  public List<JobEdge> getOutputs() {
    return outputs;
  }

  @Override
  public String toString() {
    return getName() + " (parallelism " + getParallelism() + ")";
  }
}
