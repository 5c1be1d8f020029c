package io.weir.runtime.graph;

import io.weir.api.OutputTag;
import io.weir.api.graph.Partitioning;
import io.weir.api.typeutils.TypeInformation;

/**
 * An edge of the plan between two operators.
 *
 * @param source the producing operator
 * @param target the consuming operator
 * @param partitioning how records are distributed
 * @param inputIndex which input of the target it feeds (0, or 1 for a second input)
 * @param explicitForward true when the user asked for forward(), which then must hold
 * @param id unique within the graph: two edges between the same operators (a stream unioned with
 *     itself) are still two edges
 * @param outputTag the side output of the source this edge carries; null for the main output
 */
public record StreamEdge(
    int id,
    StreamNode source,
    StreamNode target,
    Partitioning partitioning,
    int inputIndex,
    boolean explicitForward,
    OutputTag<?> outputTag) {

  /** The type of the records on this edge: the source's output, or the side output's. */
  public TypeInformation<?> recordType() {
    return outputTag == null ? source.getOutputType() : outputTag.getTypeInfo();
  }

  public boolean isForward() {
    return partitioning instanceof Partitioning.Forward;
  }

  @Override
  public String toString() {
    return source
        + (outputTag == null ? "" : " [" + outputTag.getId() + "]")
        + " -> "
        + target
        + " ("
        + partitioning.getClass().getSimpleName()
        + ")";
  }
}
