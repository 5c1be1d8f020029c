package io.weir.runtime.local;

import io.weir.api.JobClient;
import io.weir.api.PipelineExecutor;
import io.weir.api.graph.Pipeline;
import io.weir.runtime.graph.JobGraph;
import io.weir.runtime.graph.JobGraphBuilder;

/**
 * Runs jobs on the embedded local cluster: every subtask is a thread of this JVM, and channels are
 * in-memory queues carrying the same buffers and events as remote channels.
 */
public final class LocalExecutor implements PipelineExecutor {

  @Override
  public JobClient execute(Pipeline pipeline) {
    JobGraph graph = JobGraphBuilder.build(pipeline);
    LocalJob job = new LocalJob(graph);
    job.start();
    return job;
  }
}
