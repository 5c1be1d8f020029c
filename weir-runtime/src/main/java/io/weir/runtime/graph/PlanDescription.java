package io.weir.runtime.graph;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The shape of a {@link JobGraph} as lines of text: vertices, chained operators (ids, uids, names,
 * kinds, parallelism, output types) and edges (partitioning, inputs, side outputs). A TaskManager
 * rebuilds a job's plan by running the job's {@code main} again; comparing its description with the
 * JobManager's finds a {@code main} that builds another plan in another process (one that reads the
 * clock, a random seed or an environment variable), which would otherwise run operators against
 * state and channels meant for others. User functions' captured values are not compared: the
 * description is of what the runtime wires together.
 */
public final class PlanDescription {

  private PlanDescription() {}

  /** One line per fact of {@code graph}'s shape, in a fixed order. */
  public static List<String> of(JobGraph graph) {
    List<String> lines = new ArrayList<>();
    lines.add("job '" + graph.jobName() + "', max parallelism " + graph.maxParallelism());
    lines.add(graph.vertices().size() + " vertices");
    for (JobVertex vertex : graph.vertices()) {
      int v = vertex.getIndex();
      lines.add(
          "vertex "
              + v
              + " '"
              + vertex.getName()
              + "': parallelism "
              + vertex.getParallelism()
              + ", max parallelism "
              + vertex.getMaxParallelism()
              + ", slot sharing group '"
              + vertex.getSlotSharingGroup()
              + "', "
              + vertex.getChain().size()
              + " chained operators");
      for (StreamNode node : vertex.getChain()) {
        lines.add(
            "vertex "
                + v
                + " operator '"
                + node.getName()
                + "': id "
                + node.getOperatorId()
                + ", uid "
                + (node.getUid() == null ? "none" : "'" + node.getUid() + "'")
                + ", "
                + node.getTransformation().getClass().getSimpleName()
                + ", parallelism "
                + node.getParallelism()
                + ", output "
                + node.getOutputType());
        for (StreamEdge edge : node.getOutEdges()) {
          lines.add(
              "edge from '"
                  + edge.source().getName()
                  + "' ("
                  + edge.source().getOperatorId()
                  + ") to '"
                  + edge.target().getName()
                  + "' ("
                  + edge.target().getOperatorId()
                  + ") input "
                  + edge.inputIndex()
                  + ": "
                  + edge.partitioning().getClass().getSimpleName()
                  + (edge.outputTag() == null
                      ? ""
                      : ", side output '" + edge.outputTag().getId() + "'"));
        }
      }
    }
    return lines;
  }

  /**
   * The first line where {@code actual} differs from {@code expected}, told as both versions; empty
   * when the two are equal.
   */
  public static Optional<String> firstDifference(List<String> expected, List<String> actual) {
    int common = Math.min(expected.size(), actual.size());
    for (int i = 0; i < common; i++) {
      if (!expected.get(i).equals(actual.get(i))) {
        return Optional.of("expected " + expected.get(i) + ", but built " + actual.get(i));
      }
    }
    if (expected.size() > common) {
      return Optional.of("expected " + expected.get(common) + ", but built nothing more");
    }
    if (actual.size() > common) {
      return Optional.of("expected nothing more, but built " + actual.get(common));
    }
    return Optional.empty();
  }
}
