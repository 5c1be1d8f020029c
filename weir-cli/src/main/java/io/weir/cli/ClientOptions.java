package io.weir.cli;

import io.weir.cluster.ClusterClient;
import io.weir.cluster.HostPort;
import picocli.CommandLine.Option;

/** How a client command reaches the JobManager's REST API. */
final class ClientOptions {

  @Option(
      names = {"--jobmanager", "-m"},
      paramLabel = "HOST:PORT",
      defaultValue = "127.0.0.1:8081",
      description = "The JobManager's REST address (rest.port), default ${DEFAULT-VALUE}.")
  String jobManager;

  @Option(
      names = "--secret",
      description = "The cluster's shared secret (security.cluster.secret); default $WEIR_SECRET.")
  String secret;

  ClusterClient client() {
    String s = secret != null ? secret : System.getenv("WEIR_SECRET");
    return new ClusterClient(HostPort.parse(jobManager, "--jobmanager"), s);
  }
}
