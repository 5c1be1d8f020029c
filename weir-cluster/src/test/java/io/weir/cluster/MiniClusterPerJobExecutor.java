package io.weir.cluster;

import io.weir.api.JobClient;
import io.weir.api.PipelineExecutor;
import io.weir.api.graph.Pipeline;
import io.weir.cluster.client.ClusterExecutor;
import io.weir.runtime.testing.matrix.Deployment;
import io.weir.runtime.testing.matrix.DeploymentExecutorFactory;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Runs each job on a fresh {@link MiniCluster} of two TaskManagers, closed once the job has ended:
 * the deployment of the test matrix's {@code *_MINI_CLUSTER} cells, so that weir-runtime's matrix
 * suites run unchanged across TaskManagers. A fresh cluster per job, as local execution has a fresh
 * task executor per job: nothing a job leaves behind reaches the next.
 *
 * <p>Its {@link Factory}, registered from this module's test resources, outranks {@link
 * ClusterExecutor}'s and leaves it every job while no mini cluster cell runs.
 */
public final class MiniClusterPerJobExecutor implements PipelineExecutor {

  static final int TASK_MANAGERS = 2;

  /** Closes clusters off the thread that completes a job's result (a job master's, or Netty's). */
  private static final ExecutorService CLOSER =
      Executors.newCachedThreadPool(
          r -> {
            Thread t = new Thread(r, "mini-cluster-closer");
            t.setDaemon(true);
            return t;
          });

  private static final AtomicInteger JOBS = new AtomicInteger();

  /** Jobs run on a mini cluster by this executor so far in this JVM. */
  static int jobs() {
    return JOBS.get();
  }

  @Override
  public JobClient execute(Pipeline pipeline) throws Exception {
    MiniCluster cluster = new MiniCluster(TASK_MANAGERS);
    JobClient job;
    try {
      job = cluster.submit(pipeline);
    } catch (RuntimeException | Error e) {
      cluster.close();
      throw e;
    }
    JOBS.incrementAndGet();
    job.getJobExecutionResult().whenCompleteAsync((result, failure) -> cluster.close(), CLOSER);
    return job;
  }

  /** Registered with {@link java.util.ServiceLoader} from this module's test resources. */
  public static final class Factory implements DeploymentExecutorFactory {
    @Override
    public Deployment deployment() {
      return Deployment.MINI_CLUSTER;
    }

    @Override
    public int priority() {
      return new ClusterExecutor.Factory().priority() + 10;
    }

    @Override
    public PipelineExecutor create() {
      return Deployment.current() == Deployment.MINI_CLUSTER
          ? new MiniClusterPerJobExecutor()
          : new ClusterExecutor.Factory().create();
    }
  }
}
