package io.weir.cli;

import io.weir.api.config.Configuration;
import io.weir.cluster.ClusterOptions;
import io.weir.cluster.client.ClusterClient;
import io.weir.cluster.ha.HighAvailabilityOptions;
import io.weir.cluster.ha.ZooKeeperHaServices;
import io.weir.cluster.rpc.HostPort;
import java.nio.file.Path;
import java.util.Map;
import picocli.CommandLine.Option;

/** How a client command reaches the JobManager's REST API. */
final class ClientOptions {

  /** Where a JobManager's REST API is when none is given. */
  static final String DEFAULT_JOB_MANAGER = "127.0.0.1:8081";

  /** The value of {@code --jobmanager} that finds the leader through ZooKeeper. */
  static final String ZOOKEEPER = "zookeeper";

  @Option(
      names = {"--jobmanager", "-m"},
      paramLabel = "HOST:PORT",
      description =
          "The JobManager's REST address (rest.port), default "
              + DEFAULT_JOB_MANAGER
              + "; 'zookeeper': the leader of a highly available cluster, found with the"
              + " high-availability settings of config.yaml in --conf-dir.")
  String jobManager;

  @Option(
      names = "--conf-dir",
      paramLabel = "DIR",
      description =
          "Where the cluster's config.yaml is, read for -m zookeeper; default $WEIR_CONF_DIR.")
  Path confDir;

  @Option(
      names = "--secret",
      description = "The cluster's shared secret (security.cluster.secret); default $WEIR_SECRET.")
  String secret;

  /** True when {@code --jobmanager} was given. */
  boolean jobManagerGiven() {
    return jobManager != null;
  }

  ClusterClient client() {
    String address = jobManager != null ? jobManager : DEFAULT_JOB_MANAGER;
    return client(address.equalsIgnoreCase(ZOOKEEPER) ? leaderRestAddress() : address);
  }

  /**
   * The REST address of the JobManager that leads, as ZooKeeper publishes it for the cluster that
   * {@code config.yaml} in the configuration directory describes.
   */
  private String leaderRestAddress() {
    Path dir = confDir;
    if (dir == null) {
      String env = System.getenv("WEIR_CONF_DIR");
      dir = env == null || env.isBlank() ? null : Path.of(env);
    }
    if (dir == null) {
      throw new IllegalArgumentException(
          "-m zookeeper finds the leader with the cluster's high-availability settings: give the"
              + " directory of its config.yaml with --conf-dir DIR (or $WEIR_CONF_DIR)");
    }
    Path file = dir.resolve("config.yaml");
    Configuration conf = ClusterOptions.load(file, Map.of()).configuration();
    if (!HighAvailabilityOptions.isZooKeeper(conf)) {
      throw new IllegalArgumentException(
          "-m zookeeper needs "
              + HighAvailabilityOptions.TYPE.key()
              + ": zookeeper and the cluster's quorum in "
              + file
              + ", as the JobManagers have them");
    }
    return ZooKeeperHaServices.findLeader(conf).restAddress();
  }

  /** A client of the JobManager at {@code address}, with this command's secret. */
  ClusterClient client(String address) {
    String s = secret != null ? secret : System.getenv("WEIR_SECRET");
    return new ClusterClient(HostPort.parse(address, "--jobmanager"), s);
  }
}
