package io.weir.cluster.ha;

import io.weir.api.config.ConfigOption;
import io.weir.api.config.ConfigOptions;
import io.weir.api.config.Configuration;
import java.time.Duration;
import java.util.Locale;

/**
 * The high-availability settings of JobManager and TaskManager processes, with Flink's keys (and
 * Weir's {@link #JOBMANAGER_LOSS_GRACE}). They are cluster keys: {@link
 * io.weir.cluster.ClusterOptions} lists them among its options, so the one registry knows them and
 * a JobManager never passes them to its jobs as defaults. {@link ZooKeeperHaSettings#from} reads
 * and checks them together.
 */
public final class HighAvailabilityOptions {

  /** {@link #TYPE} without high availability: everything lives in the JobManager's memory. */
  public static final String TYPE_NONE = "none";

  /** {@link #TYPE} with leader election and the jobs' pointers on ZooKeeper. */
  public static final String TYPE_ZOOKEEPER = "zookeeper";

  public static final ConfigOption<String> TYPE =
      ConfigOptions.key("high-availability.type")
          .stringType()
          .defaultValue(TYPE_NONE)
          .withDescription(
              "none (a lost JobManager loses its jobs) or zookeeper (leader election and the jobs'"
                  + " pointers on ZooKeeper; the services exist, JobManager failover on them is"
                  + " still to come: see docs/high-availability.md).")
          .withDeprecatedKeys("high-availability");

  public static final ConfigOption<String> ZOOKEEPER_QUORUM =
      ConfigOptions.key("high-availability.zookeeper.quorum")
          .stringType()
          .noDefaultValue()
          .withDescription(
              "The ZooKeeper servers, host:port separated by commas; required with"
                  + " high-availability.type zookeeper.");

  public static final ConfigOption<String> STORAGE_DIR =
      ConfigOptions.key("high-availability.storageDir")
          .stringType()
          .noDefaultValue()
          .withDescription(
              "Where the bytes behind ZooKeeper's pointers go (submitted jobs and their jars): a"
                  + " directory every JobManager reaches (HDFS, S3, a shared file system);"
                  + " required with high-availability.type zookeeper.");

  public static final ConfigOption<String> CLUSTER_ID =
      ConfigOptions.key("high-availability.cluster-id")
          .stringType()
          .defaultValue("/default")
          .withDescription(
              "The cluster's name below the root path in ZooKeeper and in the storage directory:"
                  + " clusters sharing a quorum need different ones.");

  public static final ConfigOption<String> ZOOKEEPER_ROOT =
      ConfigOptions.key("high-availability.zookeeper.path.root")
          .stringType()
          .defaultValue("/weir")
          .withDescription("The root znode of every Weir cluster on the quorum.");

  public static final ConfigOption<Duration> ZOOKEEPER_SESSION_TIMEOUT =
      ConfigOptions.key("high-availability.zookeeper.client.session-timeout")
          .durationType()
          .defaultValue(Duration.ofSeconds(60))
          .withDescription(
              "A ZooKeeper session lost for longer than this expires: its leader is deposed (bare"
                  + " numbers are ms).");

  public static final ConfigOption<Duration> ZOOKEEPER_CONNECTION_TIMEOUT =
      ConfigOptions.key("high-availability.zookeeper.client.connection-timeout")
          .durationType()
          .defaultValue(Duration.ofSeconds(15))
          .withDescription(
              "How long a process waits for its first connection to ZooKeeper, and each attempt"
                  + " of an operation for a lost one (bare numbers are ms).");

  public static final ConfigOption<Duration> ZOOKEEPER_RETRY_WAIT =
      ConfigOptions.key("high-availability.zookeeper.client.retry-wait")
          .durationType()
          .defaultValue(Duration.ofSeconds(5))
          .withDescription(
              "The first pause before an operation that failed on a lost connection is retried;"
                  + " it doubles with each retry (bare numbers are ms).");

  public static final ConfigOption<Integer> ZOOKEEPER_MAX_RETRY_ATTEMPTS =
      ConfigOptions.key("high-availability.zookeeper.client.max-retry-attempts")
          .intType()
          .defaultValue(3)
          .withDescription("How often an operation that failed on a lost connection is retried.");

  public static final ConfigOption<Boolean> ZOOKEEPER_TOLERATE_SUSPENDED_CONNECTIONS =
      ConfigOptions.key("high-availability.zookeeper.client.tolerate-suspended-connections")
          .booleanType()
          .defaultValue(true)
          .withDescription(
              "Whether a leader whose connection to ZooKeeper is suspended keeps leading until its"
                  + " session is lost (true), or stops at once (false, Flink's default). Weir"
                  + " fences every write and every call to a TaskManager with the leader's epoch,"
                  + " so a leader that kept leading too long can do no harm; true lets jobs run on"
                  + " through a short ZooKeeper outage.");

  public static final ConfigOption<Duration> JOBMANAGER_LOSS_GRACE =
      ConfigOptions.key("high-availability.jobmanager-loss-grace")
          .durationType()
          .defaultValue(Duration.ofSeconds(30))
          .withDescription(
              "How long a TaskManager that lost its leader keeps the tasks running for a new"
                  + " leader to adopt them, and how long a new leader waits for the TaskManagers to"
                  + " offer a job's tasks before it restores the job from its checkpoint instead"
                  + " (Weir's; 0 s turns adoption off; bare numbers are ms).");

  private HighAvailabilityOptions() {}

  /**
   * Whether {@code conf} asks for high availability on ZooKeeper.
   *
   * @throws IllegalArgumentException naming the key, for a type other than none and zookeeper
   */
  public static boolean isZooKeeper(Configuration conf) {
    String type = conf.get(TYPE).strip().toLowerCase(Locale.ROOT);
    switch (type) {
      case TYPE_NONE:
        return false;
      case TYPE_ZOOKEEPER:
        return true;
      default:
        throw new IllegalArgumentException(
            TYPE.key()
                + ": unknown type '"
                + conf.get(TYPE)
                + "'; Weir supports 'none' and 'zookeeper'"
                + ("kubernetes".equals(type)
                    ? " (Kubernetes deployments use a ZooKeeper quorum, see"
                        + " docs/high-availability.md)"
                    : ""));
    }
  }
}
