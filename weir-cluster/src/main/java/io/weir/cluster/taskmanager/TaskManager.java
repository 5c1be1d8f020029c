package io.weir.cluster.taskmanager;

import io.grpc.Server;
import io.grpc.ServerInterceptors;
import io.weir.cluster.ClusterOptions;
import io.weir.cluster.StatusFile;
import io.weir.cluster.data.ConnectionLiveness;
import io.weir.cluster.data.DataTransport;
import io.weir.cluster.data.NettyDataPlane;
import io.weir.cluster.ha.ZooKeeperHaServices;
import io.weir.cluster.metrics.JvmStatus;
import io.weir.cluster.metrics.ProcessMetrics;
import io.weir.cluster.rpc.ControlPlane;
import io.weir.cluster.rpc.JarChunk;
import io.weir.cluster.rpc.JarRequest;
import io.weir.cluster.rpc.JarStore;
import io.weir.cluster.rpc.JobPayload;
import io.weir.cluster.rpc.LeaderEpochFence;
import io.weir.cluster.rpc.Messages;
import io.weir.cluster.rpc.RegisterTaskManagerRequest;
import io.weir.cluster.rpc.Secrets;
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
 * JobManager cannot be reached), heartbeats it ({@link JobManagerConnection}), and runs the tasks
 * it is sent, one {@link JobOnTaskManager} per job. When the JobManager is lost or no longer knows
 * it, it cancels its tasks and registers again — except under high availability, where it keeps
 * them running for {@code high-availability.jobmanager-loss-grace}, offers them to the next leader
 * when it registers and hands them over when that leader adopts them ({@link TaskHandover}).
 */
public final class TaskManager implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(TaskManager.class);

  private final String id;
  private final int slots;
  private final Server server;
  private final NettyDataPlane dataPlane;
  private final String advertisedHost;

  /** The control port the JobManager reaches: the bound one, or taskmanager.rpc.port behind NAT. */
  private final int advertisedRpcPort;

  private final String secret;

  /** Refuses calls of a leader older than the newest known (high availability). */
  private final LeaderEpochFence fence = new LeaderEpochFence();

  /** Registration with, and heartbeats to, the JobManager that leads. */
  private final JobManagerConnection connection;

  /** What becomes of the tasks while this TaskManager has no leader. */
  private final TaskHandover handover;

  private final ScheduledExecutorService timer =
      Executors.newSingleThreadScheduledExecutor(daemon("weir-taskmanager-heartbeats"));
  private final ExecutorService outbox = Executors.newSingleThreadExecutor(daemon("weir-outbox"));
  private final Map<String, JobOnTaskManager> jobs = new LinkedHashMap<>();
  private final JarStore jars;

  /** Where to say that this TaskManager registered, or null ({@code cluster.status-file}). */
  private final Path statusFile;

  /** The process's metrics: this TaskManager's own, or those it shares with a JobManager. */
  private final ProcessMetrics metrics;

  /** Whether {@link #metrics} are this TaskManager's own, closed with it. */
  private final boolean ownsMetrics;

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
    for (String key : options.unknownKeys()) {
      LOG.warn("Ignoring the setting {}: neither this process nor a job reads it", key);
    }
    for (String warning : options.warnings()) {
      LOG.warn(warning);
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
    long heartbeatInterval = options.get(ClusterOptions.HEARTBEAT_INTERVAL).toMillis();
    long heartbeatTimeout = options.get(ClusterOptions.HEARTBEAT_TIMEOUT).toMillis();
    String bindHost = options.get(ClusterOptions.TM_BIND_HOST);
    String host = options.get(ClusterOptions.TM_HOST);
    this.advertisedHost = host != null ? host : bindHost;
    this.secret = options.secret();
    int port = options.get(ClusterOptions.TM_PORT);
    Integer rpcBindPort = options.get(ClusterOptions.TM_RPC_BIND_PORT);
    int dataPort = options.get(ClusterOptions.TM_DATA_PORT);
    Integer dataBindPort = options.get(ClusterOptions.TM_DATA_BIND_PORT);
    DataTransport transport =
        DataTransport.of(
            ClusterOptions.NETTY_TRANSPORT.key(), options.get(ClusterOptions.NETTY_TRANSPORT));
    int dataThreads = dataPlaneThreads(options.get(ClusterOptions.NETTY_THREADS), slots);
    this.ownsMetrics = metrics == null;
    this.metrics = metrics != null ? metrics : ProcessMetrics.start(options, bindHost);
    this.metrics.registerNativeMemory();
    try {
      this.server =
          ControlPlane.server(
                  new InetSocketAddress(bindHost, rpcBindPort == null ? port : rpcBindPort))
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
              + (rpcBindPort == null ? port : rpcBindPort)
              + " ("
              + e.getMessage()
              + "): choose another with -D "
              + (rpcBindPort == null ? ClusterOptions.TM_PORT : ClusterOptions.TM_RPC_BIND_PORT)
                  .key()
              + "=PORT",
          e);
    }
    // Data connections are pinged as the JobManager is heartbeated: a connection that carries
    // bytes one way only is found and closed within the same timeout.
    ConnectionLiveness liveness =
        new ConnectionLiveness(
            java.time.Duration.ofMillis(heartbeatInterval),
            java.time.Duration.ofMillis(heartbeatTimeout));
    try {
      this.dataPlane =
          dataBindPort == null
              ? new NettyDataPlane(
                  bindHost, dataPort, advertisedHost, 0, secret, transport, dataThreads, liveness)
              : new NettyDataPlane(
                  bindHost,
                  dataBindPort,
                  advertisedHost,
                  dataPort,
                  secret,
                  transport,
                  dataThreads,
                  liveness);
    } catch (IOException e) {
      server.shutdownNow();
      closeMetrics();
      throw new IllegalArgumentException(
          e.getMessage()
              + ": choose another with -D "
              + (dataBindPort == null
                      ? ClusterOptions.TM_DATA_PORT
                      : ClusterOptions.TM_DATA_BIND_PORT)
                  .key()
              + "=PORT",
          e);
    }
    this.advertisedRpcPort = rpcBindPort == null ? server.getPort() : port;
    this.id = "tm-" + server.getPort() + "-" + UUID.randomUUID().toString().substring(0, 8);
    this.jars =
        new JarStore(
            Path.of(
                System.getProperty("java.io.tmpdir"),
                "weir-taskmanager-" + ProcessHandle.current().pid(),
                "jars"));
    this.connection =
        new JobManagerConnection(
            id,
            secret,
            fence,
            timer,
            heartbeatInterval,
            heartbeatTimeout,
            new Registration(),
            fatal);
    if (jobManagerHost == null) {
      LOG.info(
          "TaskManager {} started with {} slots, control port {}:{}; following the leader that"
              + " ZooKeeper publishes",
          id,
          slots,
          bindHost,
          server.getPort());
      ZooKeeperHaServices haServices = null;
      try {
        haServices = ZooKeeperHaServices.connect(options.configuration());
        this.handover =
            new TaskHandover(
                id, haServices.settings().jobManagerLossGrace(), timer, new HandoverJobs());
        connection.followLeader(haServices);
      } catch (RuntimeException e) {
        JobManagerConnection.closeQuietly(haServices);
        server.shutdownNow();
        dataPlane.close();
        closeMetrics();
        throw e;
      }
      return;
    }
    this.handover = new TaskHandover(id, Duration.ZERO, timer, new HandoverJobs());
    connection.connect(jobManagerHost, jobManagerPort);
    LOG.info(
        "TaskManager {} started with {} slots, control port {}:{}; registering with the JobManager"
            + " at {}",
        id,
        slots,
        bindHost,
        server.getPort(),
        connection.address());
    connection.register();
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

  /** The address the control port is bound to ({@code taskmanager.bind-host}). */
  public InetSocketAddress rpcAddress() {
    return (InetSocketAddress) server.getListenSockets().get(0);
  }

  /** The address the data port is bound to ({@code taskmanager.bind-host}). */
  public InetSocketAddress dataAddress() {
    return dataPlane.boundAddress();
  }

  /** This TaskManager as its connection to the JobManager sees it. */
  private final class Registration implements JobManagerConnection.Registrant {
    @Override
    public RegisterTaskManagerRequest registration() {
      RegisterTaskManagerRequest.Builder request =
          RegisterTaskManagerRequest.newBuilder()
              .setTaskManagerId(id)
              .setHost(advertisedHost)
              .setPort(advertisedRpcPort)
              .setDataPort(dataPlane.advertisedPort())
              .setSlots(slots);
      handover.offer(request);
      return request.build();
    }

    @Override
    public void registered(String address, long leaderEpoch) {
      if (statusFile != null) {
        Map<String, String> values = new LinkedHashMap<>();
        values.put("pid", String.valueOf(ProcessHandle.current().pid()));
        values.put("id", id);
        values.put("rpc.port", String.valueOf(server.getPort()));
        values.put("data.port", String.valueOf(dataPlane.port()));
        values.put("jobmanager", address);
        if (metrics.enabled()) {
          values.put("metrics.port", String.valueOf(metrics.port()));
        }
        StatusFile.write(statusFile, values);
      }
      handover.registered(leaderEpoch, address);
    }

    @Override
    public void lost(long lostEpoch, String why) {
      handover.leaderLost(lostEpoch, why);
    }
  }

  /** Cancels the job's tasks here, for {@code reason}, and forgets it. */
  private void forget(JobOnTaskManager job, String reason) {
    synchronized (this) {
      // A deployment of the next leader, for the same job, gets a new one, even while this one's
      // cancelled tasks are still ending.
      jobs.remove(job.jobId(), job);
    }
    job.cancelAll("TaskManager " + id + " cancelled its tasks: " + reason);
    job.release();
  }

  /** See {@link TaskHandover#adopt}. */
  void adopt(String jobId, int attempt) {
    handover.adopt(jobId, attempt, connection.address());
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
    public void forget(JobOnTaskManager job, String reason) {
      TaskManager.this.forget(job, reason);
    }
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
            connection::stub,
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
          connection
              .stub()
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
              + connection.address()
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
    TaskManagerStatus.Builder status =
        TaskManagerStatus.newBuilder()
            .setTaskManagerId(id)
            .putAllJvmMetrics(JvmStatus.metrics())
            .setHardware(JvmStatus.hardware());
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
    connection.stop();
    for (JobOnTaskManager job : jobsSnapshot()) {
      job.cancelAll("TaskManager " + id + " is shutting down");
    }
    timer.shutdownNow();
    server.shutdownNow();
    server.awaitTermination(5, TimeUnit.SECONDS);
    dataPlane.close();
    outbox.shutdown();
    outbox.awaitTermination(5, TimeUnit.SECONDS);
    connection.close();
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
