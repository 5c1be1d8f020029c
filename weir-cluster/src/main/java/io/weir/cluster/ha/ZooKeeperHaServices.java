package io.weir.cluster.ha;

import io.weir.api.config.Configuration;
import io.weir.runtime.storage.FileSystem;
import io.weir.runtime.storage.FileSystems;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URI;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.LongFunction;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.SessionConnectionStateErrorPolicy;
import org.apache.curator.framework.state.StandardConnectionStateErrorPolicy;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A process's high-availability services on ZooKeeper: one Curator client in the cluster's
 * namespace ({@code <path.root>/<cluster-id>}) and the services made on it: leader election and
 * retrieval, and per job the checkpoint id counter, the completed-checkpoint store, the submitted
 * jobs and the jobs' results. See {@link ZNodes} for what lives where, and
 * docs/high-availability.md.
 *
 * <p>Thread-safe. {@link #close()} closes the client: every service made here stops with it.
 */
public final class ZooKeeperHaServices implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(ZooKeeperHaServices.class);

  private final ZooKeeperHaSettings settings;
  private final CuratorFramework client;
  private final Configuration fileSystemConf;

  private ZooKeeperHaServices(
      ZooKeeperHaSettings settings, CuratorFramework client, Configuration fileSystemConf) {
    this.settings = settings;
    this.client = client;
    this.fileSystemConf = fileSystemConf;
  }

  /**
   * Connects to the quorum of {@code conf} and checks that the storage directory is writable.
   *
   * @throws IllegalArgumentException naming the keys at fault in {@code conf}
   * @throws HighAvailabilityException naming the quorum and its key when no server answered within
   *     the connection timeout, or the storage directory and its key when it cannot be written
   */
  public static ZooKeeperHaServices start(Configuration conf) {
    return start(ZooKeeperHaSettings.from(conf), conf);
  }

  /**
   * As {@link #start(Configuration)} with settings read already; {@code fileSystemConf} makes the
   * storage directory's file system (S3 credentials, Hadoop settings).
   */
  public static ZooKeeperHaServices start(
      ZooKeeperHaSettings settings, Configuration fileSystemConf) {
    checkStorageDirectory(settings, fileSystemConf);
    ZooKeeperHaServices services = connect(settings, fileSystemConf);
    try {
      services.claimClusterId();
    } catch (RuntimeException e) {
      services.close();
      throw e;
    }
    return services;
  }

  /** What {@code /cluster} holds: the storage directory of the cluster that uses this id. */
  record ClusterRecord(String storageDir) {}

  /**
   * Records this cluster's storage directory under its id, or refuses to start when another
   * cluster, with another storage directory, uses the id: two clusters under one id would run and
   * fence each other's jobs. Processes with the same id and storage directory are one cluster.
   */
  private void claimClusterId() {
    String ours = clusterStorageDirectory();
    try {
      try {
        client
            .create()
            .creatingParentsIfNeeded()
            .forPath(ZNodes.CLUSTER, ZNodeJson.write(new ClusterRecord(ours)));
        return;
      } catch (org.apache.zookeeper.KeeperException.NodeExistsException e) {
        // another JobManager of this cluster made it, or another cluster did
      }
      ClusterRecord theirs =
          ZNodeJson.read(
              client.getData().forPath(ZNodes.CLUSTER), ClusterRecord.class, ZNodes.CLUSTER);
      if (!theirs.storageDir().equals(ours)) {
        throw new HighAvailabilityException(
            "The cluster id '"
                + settings.clusterId()
                + "' ("
                + HighAvailabilityOptions.CLUSTER_ID.key()
                + ") is used on ZooKeeper at '"
                + settings.quorum()
                + "' by a cluster that keeps its data in "
                + theirs.storageDir()
                + ", not in "
                + ours
                + " ("
                + HighAvailabilityOptions.STORAGE_DIR.key()
                + "): give each cluster its own cluster id, or this JobManager the other's"
                + " storage directory if it belongs to that cluster");
      }
    } catch (HighAvailabilityException e) {
      throw e;
    } catch (Exception e) {
      throw new HighAvailabilityException(
          "Cannot record the cluster id '" + settings.clusterId() + "' in ZooKeeper: " + e, e);
    }
  }

  /**
   * Connects to the quorum of {@code conf} without touching the storage directory: for processes
   * that only follow the leader (TaskManagers, clients).
   *
   * @throws IllegalArgumentException naming the keys at fault in {@code conf}
   * @throws HighAvailabilityException naming the quorum and its key when no server answered within
   *     the connection timeout
   */
  public static ZooKeeperHaServices connect(Configuration conf) {
    return connect(ZooKeeperHaSettings.from(conf), conf);
  }

  /**
   * The leader ZooKeeper publishes for the cluster of {@code conf}, waiting for one up to the
   * connection timeout (an election may be going on).
   *
   * @throws HighAvailabilityException naming the quorum and the cluster id when none leads
   */
  public static LeaderInfo findLeader(Configuration conf) {
    try (ZooKeeperHaServices services = connect(conf)) {
      java.util.concurrent.CompletableFuture<LeaderInfo> found =
          new java.util.concurrent.CompletableFuture<>();
      try (LeaderRetrieval retrieval =
          services.leaderRetrieval(leader -> leader.ifPresent(found::complete))) {
        Duration wait = services.settings.connectionTimeout();
        try {
          return found.get(wait.toMillis(), TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.TimeoutException e) {
          throw new HighAvailabilityException(
              "No JobManager leads the cluster '"
                  + services.settings.clusterId()
                  + "' ("
                  + HighAvailabilityOptions.CLUSTER_ID.key()
                  + ") on ZooKeeper at '"
                  + services.settings.quorum()
                  + "' within "
                  + wait.toMillis()
                  + " ms: start a JobManager with the same high-availability settings, or check"
                  + " the cluster id");
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new HighAvailabilityException("Interrupted while looking for the leader", e);
        } catch (java.util.concurrent.ExecutionException e) {
          throw new HighAvailabilityException("Looking for the leader failed: " + e.getCause(), e);
        }
      }
    }
  }

  private static ZooKeeperHaServices connect(
      ZooKeeperHaSettings settings, Configuration fileSystemConf) {
    CuratorFramework client =
        CuratorFrameworkFactory.builder()
            .connectString(settings.quorum())
            .namespace(settings.namespace())
            .sessionTimeoutMs(millis(settings.sessionTimeout()))
            .connectionTimeoutMs(millis(settings.connectionTimeout()))
            .retryPolicy(
                new ExponentialBackoffRetry(
                    millis(settings.retryWait()), settings.maxRetryAttempts()))
            // Flink's choice since 1.14 (tolerate-suspended-connections false): a suspended
            // connection counts as lost leadership at once, since another JobManager may lead
            // before this one hears that its session expired. Weir fences every write and every
            // call with the epoch, so by default only a lost session ends a leadership.
            .connectionStateErrorPolicy(
                settings.tolerateSuspendedConnections()
                    ? new SessionConnectionStateErrorPolicy()
                    : new StandardConnectionStateErrorPolicy())
            .build();
    client.start();
    boolean connected;
    try {
      connected =
          client.blockUntilConnected(millis(settings.connectionTimeout()), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      client.close();
      throw new HighAvailabilityException("Interrupted while connecting to ZooKeeper", e);
    }
    if (!connected) {
      client.close();
      throw new HighAvailabilityException(
          "Cannot reach ZooKeeper at '"
              + settings.quorum()
              + "' ("
              + HighAvailabilityOptions.ZOOKEEPER_QUORUM.key()
              + ") within "
              + settings.connectionTimeout().toMillis()
              + " ms ("
              + HighAvailabilityOptions.ZOOKEEPER_CONNECTION_TIMEOUT.key()
              + "): check the addresses, and that the servers run and this host reaches them");
    }
    LOG.info(
        "Connected to ZooKeeper at {} in namespace /{}", settings.quorum(), settings.namespace());
    client
        .getConnectionStateListenable()
        .addListener((c, state) -> logConnectionState(settings, state));
    return new ZooKeeperHaServices(settings, client, fileSystemConf);
  }

  /** Says in the log what happens to the connection: operators alert on the warnings. */
  private static void logConnectionState(ZooKeeperHaSettings settings, ConnectionState state) {
    switch (state) {
      case SUSPENDED ->
          LOG.warn(
              "The connection to ZooKeeper at {} is suspended: retrying; the session ends if it"
                  + " is not back within {} ms ({}){}",
              settings.quorum(),
              settings.sessionTimeout().toMillis(),
              HighAvailabilityOptions.ZOOKEEPER_SESSION_TIMEOUT.key(),
              settings.tolerateSuspendedConnections() ? "" : "; a leader stops leading now");
      case LOST ->
          LOG.warn(
              "The ZooKeeper session at {} is lost: a leader stops leading, and the process"
                  + " competes again with a new session once ZooKeeper answers",
              settings.quorum());
      case RECONNECTED -> LOG.info("The connection to ZooKeeper at {} is back", settings.quorum());
      default -> {}
    }
  }

  /** The settings these services were made with. */
  public ZooKeeperHaSettings settings() {
    return settings;
  }

  /** The Curator client, in the cluster's namespace (for tests and tools). */
  public CuratorFramework client() {
    return client;
  }

  /**
   * Enters the election as {@code contenderId}, which publishes {@code rpcAddress} and {@code
   * restAddress} while it leads; {@code contender} hears each grant and revocation.
   */
  public LeaderElection leaderElection(
      String contenderId,
      String rpcAddress,
      String restAddress,
      LeaderElection.Contender contender) {
    return LeaderElection.start(client, contenderId, rpcAddress, restAddress, contender);
  }

  /** Follows the published leader; {@code listener} hears the current one and every change. */
  public LeaderRetrieval leaderRetrieval(LeaderRetrieval.Listener listener) {
    return LeaderRetrieval.start(client, listener);
  }

  /** The checkpoint id counter of job {@code jobId}, whose first id is above {@code lastId}. */
  public ZooKeeperCheckpointIDCounter checkpointIdCounter(String jobId, long lastId) {
    return ZooKeeperCheckpointIDCounter.create(client, jobId, lastId);
  }

  /**
   * The completed checkpoints of job {@code jobId} for the leader of {@code epoch}, recovered from
   * ZooKeeper (see {@link ZooKeeperCompletedCheckpointStore#recover}).
   *
   * @param pointerOf the external pointer of a checkpoint id in the job's checkpoint storage (its
   *     {@code chk-<n>} directory's URI)
   * @param jobConf the job's configuration, which makes its storage's file system
   */
  public ZooKeeperCompletedCheckpointStore completedCheckpointStore(
      String jobId,
      LeaderEpoch epoch,
      int numRetained,
      LongFunction<String> pointerOf,
      Configuration jobConf) {
    return ZooKeeperCompletedCheckpointStore.recover(
        client, writes(), jobId, epoch, numRetained, pointerOf, jobConf);
  }

  /** The configuration the cluster's file systems are made with (its storage directory's). */
  public Configuration fileSystemConfiguration() {
    return fileSystemConf;
  }

  /** The submitted jobs, their bytes in the storage directory. */
  public SubmittedJobStore submittedJobStore() {
    return new SubmittedJobStore(client, writes(), clusterStorageDirectory(), fileSystemConf);
  }

  /** The results of the cluster's finished jobs. */
  public JobResultStore jobResultStore() {
    return new JobResultStore(client, writes());
  }

  /**
   * The cluster's own directory below the storage directory, {@code <storageDir>/<cluster-id>}, as
   * a URI.
   */
  public String clusterStorageDirectory() {
    return FileSystems.toUri(settings.storageDir()).toString().replaceAll("/+$", "")
        + "/"
        + settings.clusterId();
  }

  private FencedWrites writes() {
    return new FencedWrites(client, settings.sessionTimeout());
  }

  @Override
  public void close() {
    client.close();
  }

  /** Refuses a storage directory that cannot be written, before any ZooKeeper connection. */
  private static void checkStorageDirectory(ZooKeeperHaSettings settings, Configuration conf) {
    String dir = settings.storageDir();
    try {
      URI uri = FileSystems.toUri(dir);
      FileSystem fs = FileSystems.get(uri, conf);
      String path = FileSystems.pathOf(uri).replaceAll("/+$", "") + "/" + settings.clusterId();
      fs.mkdirs(path);
      String probe = path + "/.write-check-" + UUID.randomUUID();
      try (OutputStream out = fs.create(probe, false)) {
        out.write(1);
      }
      fs.delete(probe, false);
    } catch (IOException | RuntimeException e) {
      throw new HighAvailabilityException(
          "Cannot write to the high-availability storage directory '"
              + dir
              + "' ("
              + HighAvailabilityOptions.STORAGE_DIR.key()
              + "): "
              + e.getMessage()
              + ". Give a directory every JobManager can write (HDFS, S3 or a shared file"
              + " system)",
          e);
    }
  }

  private static int millis(Duration d) {
    return (int) Math.min(Integer.MAX_VALUE, d.toMillis());
  }
}
