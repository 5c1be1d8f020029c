package io.weir.cluster.taskmanager;

import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.ServerInterceptors;
import io.grpc.Status;
import io.weir.cluster.ClusterOptions;
import io.weir.cluster.StatusFile;
import io.weir.cluster.data.DataTransport;
import io.weir.cluster.data.NettyDataPlane;
import io.weir.cluster.ha.LeaderInfo;
import io.weir.cluster.ha.LeaderRetrieval;
import io.weir.cluster.ha.ZooKeeperHaServices;
import io.weir.cluster.metrics.ProcessMetrics;
import io.weir.cluster.rpc.ControlPlane;
import io.weir.cluster.rpc.HostPort;
import io.weir.cluster.rpc.JarChunk;
import io.weir.cluster.rpc.JarRequest;
import io.weir.cluster.rpc.JarStore;
import io.weir.cluster.rpc.JobManagerServiceGrpc;
import io.weir.cluster.rpc.JobPayload;
import io.weir.cluster.rpc.LeaderEpochFence;
import io.weir.cluster.rpc.Messages;
import io.weir.cluster.rpc.RegisterTaskManagerRequest;
import io.weir.cluster.rpc.RegisterTaskManagerResponse;
import io.weir.cluster.rpc.Secrets;
import io.weir.cluster.rpc.TaskManagerHeartbeat;
import io.weir.cluster.rpc.TaskManagerStatus;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A TaskManager process: registers its slots with the JobManager (retrying with backoff while the
 * JobManager cannot be reached), heartbeats it, and runs the tasks it is sent, one {@link
 * JobOnTaskManager} per job. When the JobManager is lost or no longer knows it, it cancels its
 * tasks and registers again — except under high availability, where it keeps them running for
 * {@code high-availability.jobmanager-loss-grace}, offers them to the next leader when it registers
 * and hands them over when that leader adopts them ({@link TaskHandover}).
 */
public final class TaskManager implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(TaskManager.class);
  private static final long MAX_BACKOFF_MILLIS = 10_000;

  private final String id;
  private final int slots;
  private final Server server;
  private final NettyDataPlane dataPlane;
  private final String advertisedHost;
  private final String secret;

  /** The JobManager this TaskManager registers with: its address, channel and stub. */
  private volatile String jobManagerAddress;

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

  /** Refuses calls of a leader older than the newest known (high availability). */
  private final LeaderEpochFence fence = new LeaderEpochFence();

  /** What becomes of the tasks while this TaskManager has no leader. */
  private final TaskHandover handover;

  /** The epoch of the leader this TaskManager was pointed at last (high availability). */
  private volatile long leaderEpoch;

  private final ScheduledExecutorService timer =
      Executors.newSingleThreadScheduledExecutor(daemon("weir-taskmanager-heartbeats"));
  private final ExecutorService outbox = Executors.newSingleThreadExecutor(daemon("weir-outbox"));
  private final Map<String, JobOnTaskManager> jobs = new LinkedHashMap<>();
  private final JarStore jars;
  private final Consumer<String> fatal;

  /** Where to say that this TaskManager registered, or null ({@code cluster.status-file}). */
  private final Path statusFile;

  /** The process's metrics: this TaskManager's own, or those it shares with a JobManager. */
  private final ProcessMetrics metrics;

  /** Whether {@link #metrics} are this TaskManager's own, closed with it. */
  private final boolean ownsMetrics;

  private volatile long heartbeatInterval;
  private volatile long heartbeatTimeout;
  private volatile long lastHeardFromJobManager = System.nanoTime();
  private volatile boolean registered;
  private volatile boolean closed;

  /**
   * Starts a TaskManager that registers with the JobManager at {@code jobManagerHost:port}, or,
   * when {@code jobManagerHost} is null under high availability, with whichever JobManager leads as
   * ZooKeeper publishes it, following every change of leader.
   *
   * @param fatal told why, when going on makes no sense (the JobManager refused this TaskManager)
   */
  public TaskManager(
      ClusterOptions options, String jobManagerHost, int jobManagerPort, Consumer<String> fatal)
      throws IOException {
    this(options, jobManagerHost, jobManagerPort, fatal, null);
  }

  /**
   * As {@link #TaskManager(ClusterOptions, String, int, Consumer)}, reporting its subtasks' metrics
   * to {@code metrics}, the process's, which the caller closes (the local session cluster shares
   * them with its JobManager); null: its own, with a Prometheus endpoint when {@code
   * metrics.reporter.prom.port} is set.
   */
  public TaskManager(
      ClusterOptions options,
      String jobManagerHost,
      int jobManagerPort,
      Consumer<String> fatal,
      ProcessMetrics metrics)
      throws IOException {
    this.fatal = fatal;
    for (String key : options.unknownKeys()) {
      LOG.warn("Ignoring the setting {}: neither this process nor a job reads it", key);
    }
    this.slots = options.get(ClusterOptions.SLOTS);
    String status = options.get(ClusterOptions.STATUS_FILE);
    this.statusFile = status == null ? null : Path.of(status);
    if (slots < 1) {
      throw new IllegalArgumentException(
          "A TaskManager needs at least one slot, not "
              + slots
              + " ("
              + ClusterOptions.SLOTS.key()
              + ")");
    }
    this.heartbeatInterval = options.get(ClusterOptions.HEARTBEAT_INTERVAL).toMillis();
    this.heartbeatTimeout = options.get(ClusterOptions.HEARTBEAT_TIMEOUT).toMillis();
    String bindHost = options.get(ClusterOptions.TM_BIND_HOST);
    String host = options.get(ClusterOptions.TM_HOST);
    this.advertisedHost = host != null ? host : bindHost;
    this.secret = options.secret();
    int port = options.get(ClusterOptions.TM_PORT);
    int dataPort = options.get(ClusterOptions.TM_DATA_PORT);
    DataTransport transport =
        DataTransport.of(
            ClusterOptions.NETTY_TRANSPORT.key(), options.get(ClusterOptions.NETTY_TRANSPORT));
    int dataThreads = dataPlaneThreads(options.get(ClusterOptions.NETTY_THREADS), slots);
    this.ownsMetrics = metrics == null;
    this.metrics = metrics != null ? metrics : ProcessMetrics.start(options, bindHost);
    this.metrics.registerNativeMemory();
    try {
      this.server =
          ControlPlane.server(new InetSocketAddress(bindHost, port))
              .addService(
                  ServerInterceptors.intercept(
                      new TaskManagerRpc(this),
                      fence.interceptor("TaskManager's control port"),
                      Secrets.server(secret, "TaskManager's control port")))
              .maxInboundMessageSize(256 << 20)
              .build()
              .start();
    } catch (IOException e) {
      closeMetrics();
      throw new IllegalArgumentException(
          "Cannot open the TaskManager's control port on "
              + bindHost
              + ":"
              + port
              + " ("
              + e.getMessage()
              + "): choose another with -D "
              + ClusterOptions.TM_PORT.key()
              + "=PORT",
          e);
    }
    try {
      this.dataPlane =
          new NettyDataPlane(bindHost, dataPort, advertisedHost, secret, transport, dataThreads);
    } catch (IOException e) {
      server.shutdownNow();
      closeMetrics();
      throw new IllegalArgumentException(
          e.getMessage()
              + ": choose another with -D "
              + ClusterOptions.TM_DATA_PORT.key()
              + "=PORT",
          e);
    }
    this.id = "tm-" + server.getPort() + "-" + UUID.randomUUID().toString().substring(0, 8);
    this.jars =
        new JarStore(
            Path.of(
                System.getProperty("java.io.tmpdir"),
                "weir-taskmanager-" + ProcessHandle.current().pid(),
                "jars"));
    if (jobManagerHost == null) {
      LOG.info(
          "TaskManager {} started with {} slots, control port {}:{}; following the leader that"
              + " ZooKeeper publishes",
          id,
          slots,
          bindHost,
          server.getPort());
      try {
        haServices = ZooKeeperHaServices.connect(options.configuration());
        this.handover =
            new TaskHandover(
                id, haServices.settings().jobManagerLossGrace(), timer, new HandoverJobs());
        followLeader();
      } catch (RuntimeException e) {
        close(haServices);
        server.shutdownNow();
        dataPlane.close();
        closeMetrics();
        throw e;
      }
      return;
    }
    this.handover = new TaskHandover(id, Duration.ZERO, timer, new HandoverJobs());
    connect(jobManagerHost + ":" + jobManagerPort, jobManagerHost, jobManagerPort);
    LOG.info(
        "TaskManager {} started with {} slots, control port {}:{}; registering with the JobManager"
            + " at {}",
        id,
        slots,
        bindHost,
        server.getPort(),
        jobManagerAddress);
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
    connection++;
    if (old != null) {
      old.shutdownNow(); // nothing more goes to the JobManager this one was pointed at
    }
  }

  /** Under high availability: registers with each new leader ZooKeeper publishes. */
  private void followLeader() {
    leaderRetrieval =
        haServices.leaderRetrieval(
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
                      } catch (java.util.concurrent.RejectedExecutionException e) {
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
      reconnect(lost);
    }
  }

  private static void close(AutoCloseable c) {
    if (c != null) {
      try {
        c.close();
      } catch (Exception e) {
        LOG.debug("Closing {} failed", c, e);
      }
    }
  }

  private static java.util.concurrent.ThreadFactory daemon(String name) {
    return r -> {
      Thread t = new Thread(r, name);
      t.setDaemon(true);
      return t;
    };
  }

  public String id() {
    return id;
  }

  public int port() {
    return server.getPort();
  }

  /** The data plane's port. */
  public int dataPort() {
    return dataPlane.port();
  }

  private void register(int attempt, long backoff, int forConnection) {
    if (closed || forConnection != connection) {
      return; // pointed at another JobManager meanwhile: its own loop registers
    }
    try {
      RegisterTaskManagerRequest.Builder request =
          RegisterTaskManagerRequest.newBuilder()
              .setTaskManagerId(id)
              .setHost(advertisedHost)
              .setPort(server.getPort())
              .setDataPort(dataPlane.port())
              .setSlots(slots);
      handover.offer(request);
      RegisterTaskManagerResponse response =
          jobManager.withDeadlineAfter(10, TimeUnit.SECONDS).registerTaskManager(request.build());
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
      if (statusFile != null) {
        Map<String, String> values = new LinkedHashMap<>();
        values.put("pid", String.valueOf(ProcessHandle.current().pid()));
        values.put("id", id);
        values.put("rpc.port", String.valueOf(server.getPort()));
        values.put("data.port", String.valueOf(dataPlane.port()));
        values.put("jobmanager", jobManagerAddress);
        if (metrics.enabled()) {
          values.put("metrics.port", String.valueOf(metrics.port()));
        }
        StatusFile.write(statusFile, values);
      }
      if (response.getLeaderEpoch() > 0) {
        fence.learn(response.getLeaderEpoch());
        leaderEpoch = response.getLeaderEpoch();
      }
      handover.registered(response.getLeaderEpoch(), jobManagerAddress);
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
              .heartbeat(TaskManagerHeartbeat.newBuilder().setTaskManagerId(id).build())
              .getKnown();
      lastHeardFromJobManager = System.nanoTime();
      if (!known) {
        LOG.warn(
            "The JobManager at {} does not know this TaskManager (any more): registering again",
            jobManagerAddress);
        reconnect(leaderEpoch);
        return;
      }
    } catch (RuntimeException e) {
      long silent = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - lastHeardFromJobManager);
      if (silent > heartbeatTimeout) {
        LOG.warn(
            "The JobManager at {} is lost: nothing heard for {} ms ({} = {}); registering again",
            jobManagerAddress,
            silent,
            ClusterOptions.HEARTBEAT_TIMEOUT.key(),
            heartbeatTimeout);
        reconnect(leaderEpoch);
        return;
      }
    }
    var unused = timer.schedule(this::heartbeat, heartbeatInterval, TimeUnit.MILLISECONDS);
  }

  /**
   * The leader is lost, or no longer knows this TaskManager: registers again. Without high
   * availability (or with a grace of zero) the tasks are cancelled; with it they keep running for a
   * new leader to adopt, until the grace period ends.
   */
  private void reconnect(long lostEpoch) {
    registered = false;
    handover.leaderLost(lostEpoch);
    int current = connection;
    timer.execute(() -> register(1, 500, current));
  }

  /** Cancels the job's tasks here and forgets it. */
  private void forget(JobOnTaskManager job) {
    synchronized (this) {
      // A deployment of the next leader, for the same job, gets a new one, even while this one's
      // cancelled tasks are still ending.
      jobs.remove(job.jobId(), job);
    }
    job.cancelAll();
    job.release();
  }

  /** See {@link TaskHandover#adopt}. */
  void adopt(String jobId, int attempt) {
    handover.adopt(jobId, attempt, jobManagerAddress);
  }

  /** The jobs of this TaskManager, as its hand-over sees them. */
  private final class HandoverJobs implements TaskHandover.Jobs {
    @Override
    public java.util.List<JobOnTaskManager> all() {
      return jobsSnapshot();
    }

    @Override
    public JobOnTaskManager get(String jobId) {
      return job(jobId);
    }

    @Override
    public void forget(JobOnTaskManager job) {
      TaskManager.this.forget(job);
    }
  }

  void heardFromJobManager() {
    lastHeardFromJobManager = System.nanoTime();
  }

  private synchronized java.util.List<JobOnTaskManager> jobsSnapshot() {
    return java.util.List.copyOf(jobs.values());
  }

  synchronized JobOnTaskManager job(String jobId) {
    return jobs.get(jobId);
  }

  /** The job of {@code payload}, loaded (jar fetched, plan rebuilt) on first use. */
  JobOnTaskManager jobFor(JobPayload payload) throws Exception {
    synchronized (this) {
      JobOnTaskManager job = jobs.get(payload.getJobId());
      if (job != null) {
        return job;
      }
    }
    Path jar = fetchJar(payload.getJarId());
    JobOnTaskManager job =
        new JobOnTaskManager(
            payload,
            jar,
            () -> jobManager,
            outbox,
            dataPlane,
            metrics.taskReporter(),
            this::jobClosed);
    synchronized (this) {
      JobOnTaskManager raced = jobs.putIfAbsent(payload.getJobId(), job);
      return raced != null ? raced : job;
    }
  }

  private synchronized void jobClosed(JobOnTaskManager job) {
    jobs.remove(job.jobId(), job);
  }

  private synchronized Path fetchJar(String jarId) throws IOException {
    if (jars.contains(jarId)) {
      return jars.path(jarId);
    }
    Path target = jars.path(jarId);
    Path tmp = target.resolveSibling(".download-" + UUID.randomUUID());
    MessageDigest sha = JarStore.sha256();
    try (OutputStream out = Files.newOutputStream(tmp)) {
      Iterator<JarChunk> chunks =
          jobManager
              .withDeadlineAfter(120, TimeUnit.SECONDS)
              .downloadJar(JarRequest.newBuilder().setJarId(jarId).build());
      while (chunks.hasNext()) {
        byte[] data = chunks.next().getData().toByteArray();
        sha.update(data);
        out.write(data);
      }
    } catch (RuntimeException e) {
      Files.deleteIfExists(tmp);
      throw new IOException(
          "Cannot fetch jar "
              + jarId
              + " from the JobManager at "
              + jobManagerAddress
              + ": "
              + e.getMessage(),
          e);
    }
    String actual = HexFormat.of().formatHex(sha.digest());
    if (!actual.equals(jarId)) {
      Files.deleteIfExists(tmp);
      throw new IOException("The jar fetched as " + jarId + " has the hash " + actual);
    }
    Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING);
    LOG.info("Fetched jar {} from the JobManager", jarId);
    return target;
  }

  TaskManagerStatus status() {
    TaskManagerStatus.Builder status = TaskManagerStatus.newBuilder().setTaskManagerId(id);
    for (JobOnTaskManager job : jobsSnapshot()) {
      status.addLoadedJobs(job.jobId());
      job.running().forEach(t -> status.addRunning(Messages.toProto(t)));
      status.setOutputBuffers(status.getOutputBuffers() + job.outputBuffers());
      status.setBufferSize(job.bufferSize());
    }
    return status.build();
  }

  /** Blocks until the process is stopped. */
  public void awaitTermination() throws InterruptedException {
    server.awaitTermination();
  }

  @Override
  public void close() throws InterruptedException {
    closed = true;
    for (JobOnTaskManager job : jobsSnapshot()) {
      job.cancelAll();
    }
    timer.shutdownNow();
    server.shutdownNow();
    server.awaitTermination(5, TimeUnit.SECONDS);
    dataPlane.close();
    outbox.shutdown();
    outbox.awaitTermination(5, TimeUnit.SECONDS);
    close(leaderRetrieval);
    close(haServices);
    if (channel != null) {
      channel.shutdownNow();
    }
    closeMetrics();
  }

  private void closeMetrics() {
    if (ownsMetrics) {
      metrics.close();
    }
  }

  /**
   * The data plane's event-loop threads: {@code setting} ({@code
   * taskmanager.network.netty.num-threads}), or one per slot for -1. One loop serves a connection's
   * reads and writes and the credits that go back on it, so more loops than the slots' channels
   * need only add wake-ups.
   *
   * @throws IllegalArgumentException naming the setting when it is 0 or below -1
   */
  static int dataPlaneThreads(int setting, int slots) {
    if (setting == -1) {
      return slots;
    }
    if (setting < 1) {
      throw new IllegalArgumentException(
          "The setting "
              + ClusterOptions.NETTY_THREADS.key()
              + " = '"
              + setting
              + "' is not a number of threads: give one of at least 1, or -1 for one per slot");
    }
    return setting;
  }
}
