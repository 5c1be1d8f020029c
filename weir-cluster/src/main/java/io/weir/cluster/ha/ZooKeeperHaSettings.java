package io.weir.cluster.ha;

import static io.weir.cluster.ha.HighAvailabilityOptions.CLUSTER_ID;
import static io.weir.cluster.ha.HighAvailabilityOptions.JOBMANAGER_LOSS_GRACE;
import static io.weir.cluster.ha.HighAvailabilityOptions.STORAGE_DIR;
import static io.weir.cluster.ha.HighAvailabilityOptions.TYPE;
import static io.weir.cluster.ha.HighAvailabilityOptions.ZOOKEEPER_CONNECTION_TIMEOUT;
import static io.weir.cluster.ha.HighAvailabilityOptions.ZOOKEEPER_MAX_RETRY_ATTEMPTS;
import static io.weir.cluster.ha.HighAvailabilityOptions.ZOOKEEPER_QUORUM;
import static io.weir.cluster.ha.HighAvailabilityOptions.ZOOKEEPER_RETRY_WAIT;
import static io.weir.cluster.ha.HighAvailabilityOptions.ZOOKEEPER_ROOT;
import static io.weir.cluster.ha.HighAvailabilityOptions.ZOOKEEPER_SESSION_TIMEOUT;

import io.weir.api.config.ConfigOption;
import io.weir.api.config.Configuration;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The settings of high availability on ZooKeeper, read and checked together: every problem is
 * reported at once, each naming its key.
 *
 * @param quorum the ZooKeeper servers, {@code host:port,host:port}
 * @param storageDir where the bytes behind the pointers go, a URI or a local path
 * @param clusterId the cluster's name, without slashes at either end
 * @param rootPath the root znode, without slashes at either end
 * @param sessionTimeout see {@link HighAvailabilityOptions#ZOOKEEPER_SESSION_TIMEOUT}
 * @param connectionTimeout see {@link HighAvailabilityOptions#ZOOKEEPER_CONNECTION_TIMEOUT}
 * @param retryWait see {@link HighAvailabilityOptions#ZOOKEEPER_RETRY_WAIT}
 * @param maxRetryAttempts see {@link HighAvailabilityOptions#ZOOKEEPER_MAX_RETRY_ATTEMPTS}
 * @param jobManagerLossGrace see {@link HighAvailabilityOptions#JOBMANAGER_LOSS_GRACE}
 * @param tolerateSuspendedConnections see {@link
 *     HighAvailabilityOptions#ZOOKEEPER_TOLERATE_SUSPENDED_CONNECTIONS}
 */
public record ZooKeeperHaSettings(
    String quorum,
    String storageDir,
    String clusterId,
    String rootPath,
    Duration sessionTimeout,
    Duration connectionTimeout,
    Duration retryWait,
    int maxRetryAttempts,
    Duration jobManagerLossGrace,
    boolean tolerateSuspendedConnections) {

  private static final Pattern HOST_PORT = Pattern.compile("[^\\s,:/]+(:\\d{1,5})?");
  private static final Pattern PATH_SEGMENTS =
      Pattern.compile("[A-Za-z0-9._-]+(/[A-Za-z0-9._-]+)*");

  /**
   * The settings of {@code conf}, which must ask for {@code zookeeper}.
   *
   * @throws IllegalArgumentException listing every setting at fault with its key and what to do
   */
  public static ZooKeeperHaSettings from(Configuration conf) {
    if (!HighAvailabilityOptions.isZooKeeper(conf)) {
      throw new IllegalArgumentException(
          TYPE.key() + " is '" + conf.get(TYPE) + "': these settings exist only for 'zookeeper'");
    }
    List<String> problems = new ArrayList<>();
    String quorum = blankToNull(conf.get(ZOOKEEPER_QUORUM));
    if (quorum == null) {
      problems.add(
          ZOOKEEPER_QUORUM.key()
              + " is not set: give the ZooKeeper servers, e.g. zk1:2181,zk2:2181,zk3:2181");
    } else {
      for (String server : quorum.split(",", -1)) {
        if (!HOST_PORT.matcher(server.strip()).matches()) {
          problems.add(
              ZOOKEEPER_QUORUM.key()
                  + ": '"
                  + server.strip()
                  + "' is no host:port (in '"
                  + quorum
                  + "')");
        }
      }
    }
    String storageDir = blankToNull(conf.get(STORAGE_DIR));
    if (storageDir == null) {
      problems.add(
          STORAGE_DIR.key()
              + " is not set: give a directory every JobManager reaches, e.g."
              + " hdfs:///weir/ha or s3://bucket/weir/ha");
    }
    String clusterId = segments(conf, CLUSTER_ID, problems);
    String root = segments(conf, ZOOKEEPER_ROOT, problems);
    Duration session = positive(conf, ZOOKEEPER_SESSION_TIMEOUT, problems);
    Duration connection = positive(conf, ZOOKEEPER_CONNECTION_TIMEOUT, problems);
    Duration retryWait = positive(conf, ZOOKEEPER_RETRY_WAIT, problems);
    Duration grace = conf.get(JOBMANAGER_LOSS_GRACE);
    if (grace.isNegative()) {
      problems.add(
          JOBMANAGER_LOSS_GRACE.key()
              + " is "
              + grace
              + ": give a duration such as 30 s, or 0 s to restore jobs instead of adopting their"
              + " tasks");
    }
    int retries = conf.get(ZOOKEEPER_MAX_RETRY_ATTEMPTS);
    if (retries < 0) {
      problems.add(ZOOKEEPER_MAX_RETRY_ATTEMPTS.key() + " is " + retries + ": give 0 or more");
    }
    if (!problems.isEmpty()) {
      throw new IllegalArgumentException(
          "High availability on ZooKeeper is not configured correctly: "
              + String.join("; ", problems));
    }
    return new ZooKeeperHaSettings(
        quorum,
        storageDir,
        clusterId,
        root,
        session,
        connection,
        retryWait,
        retries,
        grace,
        conf.get(HighAvailabilityOptions.ZOOKEEPER_TOLERATE_SUSPENDED_CONNECTIONS));
  }

  /** The znode every path of this cluster is below: {@code root/cluster-id}, no leading slash. */
  public String namespace() {
    return rootPath + "/" + clusterId;
  }

  /** The same settings with other client timeouts (tests). */
  public ZooKeeperHaSettings withTimeouts(
      Duration sessionTimeout, Duration connectionTimeout, Duration retryWait, int retries) {
    return new ZooKeeperHaSettings(
        quorum,
        storageDir,
        clusterId,
        rootPath,
        sessionTimeout,
        connectionTimeout,
        retryWait,
        retries,
        jobManagerLossGrace,
        tolerateSuspendedConnections);
  }

  private static String segments(
      Configuration conf, ConfigOption<String> option, List<String> problems) {
    String raw = conf.get(option);
    String stripped = raw == null ? "" : raw.strip().replaceAll("^/+|/+$", "");
    if (!PATH_SEGMENTS.matcher(stripped).matches()) {
      problems.add(
          option.key()
              + " is '"
              + raw
              + "': give a path of letters, digits, '.', '_' and '-' separated by '/', e.g. "
              + option.defaultValue());
    }
    return stripped;
  }

  private static Duration positive(
      Configuration conf, ConfigOption<Duration> option, List<String> problems) {
    Duration d = conf.get(option);
    if (d.isNegative() || d.isZero()) {
      problems.add(option.key() + " is " + d + ": give a positive duration such as 10 s");
    }
    return d;
  }

  private static String blankToNull(String s) {
    return s == null || s.isBlank() ? null : s.strip();
  }
}
