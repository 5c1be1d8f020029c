package io.weir.cli;

import io.weir.cluster.client.ClusterClient;
import io.weir.cluster.rpc.HostPort;
import picocli.CommandLine.Option;

/** How a client command reaches the JobManager's REST API. */
final class ClientOptions {

  /** Where a JobManager's REST API is when none is given. */
  static final String DEFAULT_JOB_MANAGER = "127.0.0.1:8081";

  @Option(
      names = {"--jobmanager", "-m"},
      paramLabel = "HOST:PORT",
      description =
          "The JobManager's REST address (rest.port), default " + DEFAULT_JOB_MANAGER + ".")
  String jobManager;

  @Option(
      names = "--secret",
      description = "The cluster's shared secret (security.cluster.secret); default $WEIR_SECRET.")
  String secret;

  /** True when {@code --jobmanager} was given. */
  boolean jobManagerGiven() {
    return jobManager != null;
  }

  ClusterClient client() {
    return client(jobManager != null ? jobManager : DEFAULT_JOB_MANAGER);
  }

  /** A client of the JobManager at {@code address}, with this command's secret. */
  ClusterClient client(String address) {
    String s = secret != null ? secret : System.getenv("WEIR_SECRET");
    return new ClusterClient(HostPort.parse(address, "--jobmanager"), s);
  }
}
