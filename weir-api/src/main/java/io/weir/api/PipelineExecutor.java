package io.weir.api;

import io.weir.api.graph.Pipeline;

/**
 * Runs pipelines. The runtime provides one through {@link java.util.ServiceLoader} (the embedded
 * local cluster, or a remote cluster), so the API does not depend on the runtime.
 */
public interface PipelineExecutor {

  /** Validates the pipeline (bad input is reported here, before any task starts) and starts it. */
  JobClient execute(Pipeline pipeline) throws Exception;

  /** Found by {@link java.util.ServiceLoader}; the highest priority that accepts wins. */
  interface Factory {
    /** Higher wins when several are on the classpath. */
    int priority();

    PipelineExecutor create();
  }
}
