package io.weir.runtime.graph;

import io.weir.api.graph.ChainingStrategy;
import io.weir.api.graph.KeyContext;
import io.weir.api.graph.OneInputTransformation;
import io.weir.api.graph.Operation;
import io.weir.api.graph.SourceTransformation;
import io.weir.api.graph.Transformation;
import io.weir.api.graph.TwoInputTransformation;
import io.weir.api.typeutils.TypeInformation;
import java.util.ArrayList;
import java.util.List;

/** One operator of the plan with its resolved parallelism and edges. */
public final class StreamNode {

  private final Transformation<?> transformation;
  private final int parallelism;
  private final int maxParallelism;
  private String operatorId;
  private String slotSharingGroup;
  final List<StreamEdge> inEdges = new ArrayList<>();
  final List<StreamEdge> outEdges = new ArrayList<>();

  StreamNode(Transformation<?> transformation, int parallelism, int maxParallelism) {
    this.transformation = transformation;
    this.parallelism = parallelism;
    this.maxParallelism = maxParallelism;
  }

  public int getId() {
    return transformation.getId();
  }

  public String getName() {
    return transformation.getName();
  }

  public String getUid() {
    return transformation.getUid();
  }

  /**
   * The id that maps this operator's state in checkpoints: its uid, or one derived from its
   * position and name in the job, stable as long as the job's shape does not change.
   */
  public String getOperatorId() {
    return operatorId;
  }

  void setOperatorId(String operatorId) {
    this.operatorId = operatorId;
  }

  public int getParallelism() {
    return parallelism;
  }

  /** The number of key groups of this operator's keyed state: its own, or the job's. */
  public int getMaxParallelism() {
    return maxParallelism;
  }

  /** The slot sharing group: set on the operator, taken from its inputs, or "default". */
  public String getSlotSharingGroup() {
    return slotSharingGroup;
  }

  void setSlotSharingGroup(String slotSharingGroup) {
    this.slotSharingGroup = slotSharingGroup;
  }

  public ChainingStrategy getChainingStrategy() {
    return transformation.getChainingStrategy();
  }

  public Transformation<?> getTransformation() {
    return transformation;
  }

  public boolean isSource() {
    return transformation instanceof SourceTransformation<?>;
  }

  public boolean isTwoInput() {
    return transformation instanceof TwoInputTransformation<?, ?, ?>;
  }

  /** The operation of a non-source node. */
  public Operation getOperation() {
    if (transformation instanceof OneInputTransformation<?, ?> t) {
      return t.getOperation();
    }
    if (transformation instanceof TwoInputTransformation<?, ?, ?> t) {
      return t.getOperation();
    }
    throw new IllegalStateException(getName() + " is a source and has no operation");
  }

  /** The key context of the (first) input, or null if it is not keyed. */
  public KeyContext<?, ?> getKeyContext1() {
    if (transformation instanceof OneInputTransformation<?, ?> t) {
      return t.getKeyContext();
    }
    if (transformation instanceof TwoInputTransformation<?, ?, ?> t) {
      return t.getKeyContext1();
    }
    return null;
  }

  public KeyContext<?, ?> getKeyContext2() {
    if (transformation instanceof TwoInputTransformation<?, ?, ?> t) {
      return t.getKeyContext2();
    }
    return null;
  }

  /** True when the operator keeps keyed state, i.e. its input is keyed. */
  public boolean isKeyed() {
    return getKeyContext1() != null;
  }

  public TypeInformation<?> getOutputType() {
    return transformation.getOutputType();
  }

  public List<StreamEdge> getInEdges() {
    return inEdges;
  }

  public List<StreamEdge> getOutEdges() {
    return outEdges;
  }

  @Override
  public String toString() {
    return getName() + "#" + getId();
  }
}
