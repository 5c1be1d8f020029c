package io.weir.runtime.testing.matrix;

import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;
import java.util.ServiceLoader;

/**
 * Where the jobs of a {@link MatrixCell} run. Local execution is what {@code
 * StreamEnvironment.execute} does anyway; a cell of another deployment sets the system property
 * {@value #PROPERTY} to the deployment's {@link #word()}, which a {@link DeploymentExecutorFactory}
 * of the module that brings the deployment honours (weir-runtime's tests cannot depend on
 * weir-cluster, which has the mini cluster).
 */
public enum Deployment {
  /** {@code LocalExecutor}: one job master and one in-process task executor per job, no ports. */
  LOCAL,
  /**
   * A fresh {@code MiniCluster} of two TaskManagers per job: their task executors and Netty data
   * planes in this JVM, so channels between subtasks of different TaskManagers cross TCP.
   */
  MINI_CLUSTER;

  /** The system property a cell of a deployment other than local execution sets. */
  public static final String PROPERTY = "weir.test.deployment";

  /** The deployment as {@code weir.test.matrix} and {@value #PROPERTY} name it: {@code local}. */
  public String word() {
    return name().toLowerCase(Locale.ROOT).replace('_', '-');
  }

  /** The deployment the running test's cell asks for: local execution where none does. */
  public static Deployment current() {
    String word = System.getProperty(PROPERTY, LOCAL.word());
    return forWord(word)
        .orElseThrow(
            () ->
                new IllegalArgumentException(
                    PROPERTY
                        + ": '"
                        + word
                        + "' is no deployment; give one of "
                        + Arrays.stream(values()).map(Deployment::word).toList()));
  }

  static Optional<Deployment> forWord(String word) {
    return Arrays.stream(values()).filter(d -> d.word().equals(word)).findFirst();
  }

  /**
   * Whether jobs can run on this deployment here: local execution always; another where a {@link
   * DeploymentExecutorFactory} for it is on the class path.
   */
  public boolean isAvailable() {
    return this == LOCAL
        || ServiceLoader.load(io.weir.api.PipelineExecutor.Factory.class).stream()
            .map(ServiceLoader.Provider::get)
            .anyMatch(f -> f instanceof DeploymentExecutorFactory d && d.deployment() == this);
  }
}
