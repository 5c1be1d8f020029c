package io.weir.cluster.rest.messages;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;

/** {@code GET /jobs/:jobid/plan}, Flink's fields: the job's vertices and the edges between them. */
public record JobPlan(Plan plan) {

  public record Plan(String jid, String name, List<Node> nodes) {}

  /**
   * One vertex: a chain of operators run by one task per subtask.
   *
   * @param id the vertex's index, as text
   * @param operator the operators of its chain, head first, joined by " -> "
   * @param inputs the vertices it reads from
   */
  public record Node(
      String id, int parallelism, String operator, String description, List<Input> inputs) {}

  /**
   * @param num the input's position
   * @param id the producing vertex
   * @param shipStrategy how records cross the edge: FORWARD, HASH, REBALANCE, BROADCAST...
   */
  public record Input(int num, String id, @JsonProperty("ship_strategy") String shipStrategy) {}
}
