package io.weir.runtime.local;

import io.weir.api.JobClient;
import io.weir.api.PipelineExecutor;
import io.weir.api.graph.Pipeline;
import io.weir.runtime.graph.JobGraph;
import io.weir.runtime.graph.JobGraphBuilder;
import io.weir.runtime.jobmaster.JobMaster;
import io.weir.runtime.taskexecutor.TaskExecutor;

/**
 * Runs jobs on the embedded local cluster: a {@link JobMaster} and an in-process {@link
 * TaskExecutor} per job, talking through the same gateways as the processes of a cluster; every
 * subtask is a thread of this JVM, and channels are in-memory queues carrying the same buffers and
 * events as remote channels.
 */
public final class LocalExecutor implements PipelineExecutor {

  @Override
  public JobClient execute(Pipeline pipeline) {
    JobGraph graph = JobGraphBuilder.build(pipeline);
    JobMaster job = new JobMaster(graph, TaskExecutor::new);
    job.start();
    return job;
  }
}
