package io.weir.runtime.graph;

import io.weir.api.config.Configuration;
import java.util.List;

/**
 * The plan as the runtime runs it: chained task vertices in topological order and the network edges
 * between them.
 *
 * @param jobName the job's name
 * @param vertices the tasks, every vertex after those it consumes from
 * @param maxParallelism number of key groups
 * @param configuration the job's settings
 */
public record JobGraph(
    String jobName, List<JobVertex> vertices, int maxParallelism, Configuration configuration) {

  public JobGraph {
    vertices = List.copyOf(vertices);
  }
}
