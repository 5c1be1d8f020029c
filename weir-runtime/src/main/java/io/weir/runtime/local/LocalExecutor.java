package io.weir.runtime.local;

import io.weir.api.JobClient;
import io.weir.api.PipelineExecutor;
import io.weir.api.config.Configuration;
import io.weir.api.config.CoreOptions;
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
 *
 * <p>A job that sets no {@code parallelism.default} (neither {@code env.setParallelism}, nor the
 * configuration, nor {@code -Dparallelism.default}) runs at the number of processors of this JVM,
 * as Flink's local environment does; jobs a cluster runs ({@code weir run}, a JobManager) keep
 * {@code parallelism.default}, 1 unless set.
 */
public final class LocalExecutor implements PipelineExecutor {

  @Override
  public JobClient execute(Pipeline pipeline) {
    JobGraph graph = JobGraphBuilder.build(withLocalParallelism(pipeline));
    JobMaster job = new JobMaster(graph, TaskExecutor::new);
    job.start();
    return job;
  }

  /** {@code pipeline}, at the number of processors unless it sets {@code parallelism.default}. */
  static Pipeline withLocalParallelism(Pipeline pipeline) {
    if (pipeline.configuration().contains(CoreOptions.DEFAULT_PARALLELISM)) {
      return pipeline;
    }
    Configuration conf = new Configuration(pipeline.configuration());
    conf.set(CoreOptions.DEFAULT_PARALLELISM, Runtime.getRuntime().availableProcessors());
    return new Pipeline(pipeline.jobName(), pipeline.sinks(), conf);
  }
}
