package io.weir.api.graph;

import io.weir.api.config.Configuration;
import java.util.List;

/**
 * Everything the runtime needs to run a job.
 *
 * @param jobName the name given to {@code execute}
 * @param sinks the transformations that end streams; the plan is everything they reach
 * @param configuration the environment's settings
 */
public record Pipeline(String jobName, List<Transformation<?>> sinks, Configuration configuration) {
  public Pipeline {
    sinks = List.copyOf(sinks);
    configuration = new Configuration(configuration);
  }
}
