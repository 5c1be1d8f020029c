package io.weir.cluster.taskmanager;

import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.weir.cluster.ClusterOptions;
import io.weir.cluster.ha.LeaderInfo;
import io.weir.cluster.ha.LeaderRetrieval;
import io.weir.cluster.ha.ZooKeeperHaServices;
import io.weir.cluster.rpc.ControlPlane;
import io.weir.cluster.rpc.HostPort;
import io.weir.cluster.rpc.JobManagerServiceGrpc;
import io.weir.cluster.rpc.LeaderEpochFence;
import io.weir.cluster.rpc.RegisterTaskManagerRequest;
import io.weir.cluster.rpc.RegisterTaskManagerResponse;
import io.weir.cluster.rpc.Secrets;
import io.weir.cluster.rpc.TaskManagerHeartbeat;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A TaskManager's connection to the JobManager that leads: registers the TaskManager, retrying with
 * backoff while the JobManager cannot be reached, and heartbeats it; under high availability it
 * follows the leader ZooKeeper publishes and teaches the TaskManager's {@link LeaderEpochFence}
 * each leader's epoch. When the leader is lost, or no longer knows the TaskManager, it tells the
 * TaskManager ({@link Registrant#lost}) and registers again.
 *
 * <p>Registers and heartbeats on the TaskManager's timer thread; any thread may read {@link #stub}
 * and {@link #address}.
 */
final class JobManagerConnection {

  private static final Logger LOG = LoggerFactory.getLogger(JobManagerConnection.class);
  private static final long MAX_BACKOFF_MILLIS = 10_000;

  /** What the connection needs of its TaskManager; each call on the timer thread. */
  interface Registrant {
    /** What to register: the TaskManager's slots and ports, and the tasks it offers. */
    RegisterTaskManagerRequest registration();

    /**
     * Registered with the JobManager at {@code address}, which leads with epoch {@code leaderEpoch}
     * (0 without high availability).
     */
    void registered(String address, long leaderEpoch);

    /**
     * The leader of epoch {@code lostEpoch} is lost, or no longer knows this TaskManager, as {@code
     * why} says; the connection registers again next.
     */
    void lost(long lostEpoch, String why);
  }

  private final String taskManagerId;
  private final String secret;
  private final LeaderEpochFence fence;
  private final ScheduledExecutorService timer;
  private final Registrant registrant;
  private final Consumer<String> fatal;

  /** The JobManager this TaskManager registers with: its address, channel and stub. */
  private volatile String jobManagerAddress;

  private volatile HostPort jobManagerHostPort;

  private volatile ManagedChannel channel;
  private volatile JobManagerServiceGrpc.JobManagerServiceBlockingStub jobManager;

  /**
   * Counts the JobManagers this TaskManager was pointed at: a registration loop of an earlier one
   * stops.
   */
  private volatile int connection;

  /** Under high availability: ZooKeeper's services and the leader followed; else null. */
  private ZooKeeperHaServices haServices;

  private LeaderRetrieval leaderRetrieval;

  /** The epoch of the leader this TaskManager was pointed at last (high availability). */
  private volatile long leaderEpoch;

  private volatile long heartbeatInterval;
  private volatile long heartbeatTimeout;

  /**
   * When the JobManager last answered this TaskManager's registration or heartbeat. Only answers on
   * this connection's channel count: the JobManager's own calls arriving say nothing of whether
   * this TaskManager's reach it (a connection broken one way), and its task reports and checkpoint
   * acknowledgements go that way.
   */
  private volatile long lastHeardFromJobManager = System.nanoTime();

  private volatile boolean registered;
  private volatile boolean closed;

  /**
   * @param fence the TaskManager's control port checks calls against it
   * @param heartbeatInterval until the JobManager says otherwise when it accepts the registration
   * @param fatal told why, when going on makes no sense (the JobManager refused this TaskManager)
   */
  JobManagerConnection(
      String taskManagerId,
      String secret,
      LeaderEpochFence fence,
      ScheduledExecutorService timer,
      long heartbeatInterval,
      long heartbeatTimeout,
      Registrant registrant,
      Consumer<String> fatal) {
    this.taskManagerId = taskManagerId;
    this.secret = secret;
    this.fence = fence;
    this.timer = timer;
    this.heartbeatInterval = heartbeatInterval;
    this.heartbeatTimeout = heartbeatTimeout;
    this.registrant = registrant;
    this.fatal = fatal;
  }

  /** The address of the JobManager registered with, or being registered with. */
  String address() {
    return jobManagerAddress;
  }

  /** The stub of the JobManager registered with, or being registered with. */
  JobManagerServiceGrpc.JobManagerServiceBlockingStub stub() {
    return jobManager;
  }

  /** Points this TaskManager at the JobManager at {@code host:port}; {@link #register} follows. */
  void connect(String host, int port) {
    connect(host + ":" + port, host, port);
  }

  /** Registers, on the timer thread, with the JobManager this TaskManager is pointed at. */
  void register() {
    int current = connection;
    timer.execute(() -> register(1, 500, current));
  }

  /** Points this TaskManager at the JobManager at {@code host:port}; the old channel closes. */
  private synchronized void connect(String address, String host, int port) {
    ManagedChannel old = channel;
    channel =
        ControlPlane.channel(host, port)
            .intercept(Secrets.client(secret))
            .maxInboundMessageSize(64 << 20)
            .build();
    jobManager = JobManagerServiceGrpc.newBlockingStub(channel);
    jobManagerAddress = address;
    jobManagerHostPort = new HostPort(host, port);
    connection++;
    if (old != null) {
      old.shutdownNow(); // nothing more goes to the JobManager this one was pointed at
    }
  }

  /**
   * Under high availability: registers with each new leader that {@code ha} publishes. The
   * connection owns {@code ha} from now on and closes it.
   */
  void followLeader(ZooKeeperHaServices ha) {
    haServices = ha;
    leaderRetrieval =
        ha.leaderRetrieval(
            leader ->
                leader.ifPresent(
                    info -> {
                      fence.learn(info.epoch());
                      if (!info.rpcAddress().equals(jobManagerAddress)) {
                        // The old leader is deposed: calls still waiting on it (a paused
                        // process answers nothing) fail now instead of holding up the timer
                        // and the reports of the tasks the new leader deploys.
                        ManagedChannel old = channel;
                        if (old != null) {
                          old.shutdownNow();
                        }
                      }
                      try {
                        timer.execute(() -> newLeader(info));
                      } catch (RejectedExecutionException e) {
                        // closing
                      }
                    }));
  }

  /** On the timer: the leader changed; tasks of the old one are cancelled, the new one hears. */
  private void newLeader(LeaderInfo leader) {
    if (closed || leader.rpcAddress().equals(jobManagerAddress) && registered) {
      return;
    }
    HostPort hp = HostPort.parse(leader.rpcAddress(), "the leader's address in ZooKeeper");
    LOG.info(
        "The JobManager at {} leads ({}): registering with it",
        leader.rpcAddress(),
        leader.epoch());
    boolean first = channel == null;
    long lost = leaderEpoch;
    connect(leader.rpcAddress(), hp.host(), hp.port());
    leaderEpoch = leader.epoch();
    if (first) {
      int current = connection;
      register(1, 500, current);
    } else {
      reconnect(lost, "the JobManager it was registered with no longer leads");
    }
  }

  private void register(int attempt, long backoff, int forConnection) {
    if (closed || forConnection != connection) {
      return; // pointed at another JobManager meanwhile: its own loop registers
    }
    try {
      RegisterTaskManagerRequest request = registrant.registration();
      RegisterTaskManagerResponse response =
          jobManager.withDeadlineAfter(10, TimeUnit.SECONDS).registerTaskManager(request);
      if (!response.getAccepted()) {
        fatal.accept(
            "The JobManager at "
                + jobManagerAddress
                + " refused this TaskManager: "
                + response.getReason());
        return;
      }
      heartbeatInterval = response.getHeartbeatIntervalMillis();
      heartbeatTimeout = response.getHeartbeatTimeoutMillis();
      lastHeardFromJobManager = System.nanoTime();
      registered = true;
      LOG.info(
          "Registered with the JobManager at {} (heartbeat every {} ms, timeout {} ms)",
          jobManagerAddress,
          heartbeatInterval,
          heartbeatTimeout);
      if (response.getLeaderEpoch() > 0) {
        fence.learn(response.getLeaderEpoch());
        leaderEpoch = response.getLeaderEpoch();
      }
      registrant.registered(jobManagerAddress, response.getLeaderEpoch());
      var unused = timer.schedule(this::heartbeat, heartbeatInterval, TimeUnit.MILLISECONDS);
    } catch (RuntimeException e) {
      Status status = Status.fromThrowable(e);
      if (status.getCode() == Status.Code.UNAUTHENTICATED) {
        fatal.accept(
            "The JobManager at "
                + jobManagerAddress
                + " refused this TaskManager: "
                + status.getDescription());
        return;
      }
      LOG.warn(
          "Cannot register with the JobManager at {} (attempt {}: {}); retrying in {} ms. Check"
              + " --jobmanager HOST:PORT (the JobManager's {}) and that the JobManager runs",
          jobManagerAddress,
          attempt,
          status.getCode()
              + (status.getDescription() != null ? ", " + status.getDescription() : ""),
          backoff,
          ClusterOptions.JM_PORT.key());
      var unused =
          timer.schedule(
              () -> register(attempt + 1, Math.min(MAX_BACKOFF_MILLIS, backoff * 2), forConnection),
              backoff,
              TimeUnit.MILLISECONDS);
    }
  }

  private void heartbeat() {
    if (closed || !registered) {
      return;
    }
    try {
      boolean known =
          jobManager
              .withDeadlineAfter(Math.max(1000, heartbeatTimeout), TimeUnit.MILLISECONDS)
              .heartbeat(TaskManagerHeartbeat.newBuilder().setTaskManagerId(taskManagerId).build())
              .getKnown();
      lastHeardFromJobManager = System.nanoTime();
      if (!known) {
        LOG.warn(
            "The JobManager at {} does not know this TaskManager (any more): registering again",
            jobManagerAddress);
        reconnect(leaderEpoch, "the JobManager at " + jobManagerAddress + " no longer knows it");
        return;
      }
    } catch (RuntimeException e) {
      long silent = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - lastHeardFromJobManager);
      if (silent > heartbeatTimeout) {
        LOG.warn(
            "The JobManager at {} is lost: nothing heard for {} ms ({} = {}); registering again on"
                + " a new connection",
            jobManagerAddress,
            silent,
            ClusterOptions.HEARTBEAT_TIMEOUT.key(),
            heartbeatTimeout);
        // A fresh channel: the old one's connection may be half-open (a peer or a link that went
        // silent without closing it), and gRPC would go on sending every call into it.
        HostPort at = jobManagerHostPort;
        String lostAt = jobManagerAddress;
        connect(jobManagerAddress, at.host(), at.port());
        reconnect(
            leaderEpoch,
            "it lost the JobManager at "
                + lostAt
                + ": nothing heard for "
                + silent
                + " ms ("
                + ClusterOptions.HEARTBEAT_TIMEOUT.key()
                + " = "
                + heartbeatTimeout
                + ")");
        return;
      }
    }
    var unused = timer.schedule(this::heartbeat, heartbeatInterval, TimeUnit.MILLISECONDS);
  }

  /**
   * The leader is lost, or no longer knows this TaskManager: the TaskManager hears, then registers.
   */
  private void reconnect(long lostEpoch, String why) {
    registered = false;
    registrant.lost(lostEpoch, why);
    int current = connection;
    timer.execute(() -> register(1, 500, current));
  }

  /** Registers and heartbeats no more; a new leader is not followed. */
  void stop() {
    closed = true;
  }

  /** Closes the leader retrieval, ZooKeeper's services and the channel; after {@link #stop}. */
  void close() {
    closeQuietly(leaderRetrieval);
    closeQuietly(haServices);
    ManagedChannel current = channel;
    if (current != null) {
      current.shutdownNow();
    }
  }

  static void closeQuietly(AutoCloseable c) {
    if (c != null) {
      try {
        c.close();
      } catch (Exception e) {
        LOG.debug("Closing {} failed", c, e);
      }
    }
  }
}
