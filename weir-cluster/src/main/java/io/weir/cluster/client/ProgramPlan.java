package io.weir.cluster.client;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.weir.runtime.graph.JobGraph;
import io.weir.runtime.graph.JobVertex;
import io.weir.runtime.graph.StreamEdge;
import io.weir.runtime.graph.StreamNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A program's plan as {@code flink info} prints it: one node per operator, in the order the job
 * graph runs them, each with its predecessors and how records reach it.
 *
 * @param nodes the operators
 */
public record ProgramPlan(List<Node> nodes) {

  /**
   * One operator.
   *
   * @param id its id in the plan
   * @param type its name
   * @param pact {@code Data Source}, {@code Operator} or {@code Data Sink}
   * @param contents its name
   * @param parallelism its parallelism
   * @param predecessors the operators it reads from; absent for a source
   */
  public record Node(
      int id,
      String type,
      String pact,
      String contents,
      int parallelism,
      @JsonInclude(JsonInclude.Include.NON_EMPTY) List<Predecessor> predecessors) {}

  /**
   * An input of an operator.
   *
   * @param id the producing operator
   * @param shipStrategy how records cross: FORWARD, HASH, REBALANCE, BROADCAST...
   * @param side Flink's field: {@code first} or {@code second} input
   */
  public record Predecessor(
      int id, @JsonProperty("ship_strategy") String shipStrategy, String side) {}

  /** The plan of {@code graph}. */
  public static ProgramPlan of(JobGraph graph) {
    List<Node> nodes = new ArrayList<>();
    for (JobVertex vertex : graph.vertices()) {
      for (StreamNode node : vertex.getChain()) {
        List<Predecessor> inputs = new ArrayList<>();
        for (StreamEdge edge : node.getInEdges()) {
          inputs.add(
              new Predecessor(
                  edge.source().getId(),
                  shipStrategy(edge),
                  edge.inputIndex() == 0 ? "first" : "second"));
        }
        String pact =
            node.isSource()
                ? "Data Source"
                : node.getOutEdges().isEmpty() ? "Data Sink" : "Operator";
        nodes.add(
            new Node(
                node.getId(), node.getName(), pact, node.getName(), node.getParallelism(), inputs));
      }
    }
    return new ProgramPlan(nodes);
  }

  private static String shipStrategy(StreamEdge edge) {
    return edge.partitioning().getClass().getSimpleName().toUpperCase(Locale.ROOT);
  }
}
