package io.weir.runtime.testing.matrix;

import io.weir.api.PipelineExecutor;

/**
 * Runs the jobs of the matrix cells of one {@link Deployment} other than local execution: a {@link
 * PipelineExecutor.Factory} that the module bringing the deployment registers with {@link
 * java.util.ServiceLoader} from its test resources, with a priority above its module's own
 * executors. While {@link Deployment#current()} is its {@link #deployment()} its executors run jobs
 * there; otherwise they must do what the executor it outranks does, so that the module's other
 * tests are unchanged.
 */
public interface DeploymentExecutorFactory extends PipelineExecutor.Factory {

  /** The deployment this factory's executors run a cell's jobs on. */
  Deployment deployment();
}
