package io.weir.cluster.taskmanager;

import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.ServerInterceptors;
import io.grpc.Status;
import io.weir.cluster.ClusterOptions;
import io.weir.cluster.StatusFile;
import io.weir.cluster.data.DataTransport;
import io.weir.cluster.data.NettyDataPlane;
import io.weir.cluster.rpc.ControlPlane;
import io.weir.cluster.rpc.JarChunk;
import io.weir.cluster.rpc.JarRequest;
import io.weir.cluster.rpc.JarStore;
import io.weir.cluster.rpc.JobManagerServiceGrpc;
import io.weir.cluster.rpc.JobPayload;
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
 * tasks and registers again.
 */
public final class TaskManager implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(TaskManager.class);
  private static final long MAX_BACKOFF_MILLIS = 10_000;

  private final String id;
  private final String jobManagerAddress;
  private final int slots;
  private final Server server;
  private final NettyDataPlane dataPlane;
  private final String advertisedHost;
  private final ManagedChannel channel;
  private final JobManagerServiceGrpc.JobManagerServiceBlockingStub jobManager;
  private final ScheduledExecutorService timer =
      Executors.newSingleThreadScheduledExecutor(daemon("weir-taskmanager-heartbeats"));
  private final ExecutorService outbox = Executors.newSingleThreadExecutor(daemon("weir-outbox"));
  private final Map<String, JobOnTaskManager> jobs = new LinkedHashMap<>();
  private final JarStore jars;
  private final Consumer<String> fatal;

  /** Where to say that this TaskManager registered, or null ({@code cluster.status-file}). */
  private final Path statusFile;

  private volatile long heartbeatInterval;
  private volatile long heartbeatTimeout;
  private volatile long lastHeardFromJobManager = System.nanoTime();
  private volatile boolean registered;
  private volatile boolean closed;

  /**
   * Starts a TaskManager that registers with the JobManager at {@code jobManagerHost:port}.
   *
   * @param fatal told why, when going on makes no sense (the JobManager refused this TaskManager)
   */
  public TaskManager(
      ClusterOptions options, String jobManagerHost, int jobManagerPort, Consumer<String> fatal)
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
    this.jobManagerAddress = jobManagerHost + ":" + jobManagerPort;
    String bindHost = options.get(ClusterOptions.TM_BIND_HOST);
    String host = options.get(ClusterOptions.TM_HOST);
    this.advertisedHost = host != null ? host : bindHost;
    String secret = options.secret();
    int port = options.get(ClusterOptions.TM_PORT);
    int dataPort = options.get(ClusterOptions.TM_DATA_PORT);
    DataTransport transport =
        DataTransport.of(
            ClusterOptions.NETTY_TRANSPORT.key(), options.get(ClusterOptions.NETTY_TRANSPORT));
    int dataThreads = dataPlaneThreads(options.get(ClusterOptions.NETTY_THREADS), slots);
    try {
      this.server =
          ControlPlane.server(new InetSocketAddress(bindHost, port))
              .addService(
                  ServerInterceptors.intercept(
                      new TaskManagerRpc(this),
                      Secrets.server(secret, "TaskManager's control port")))
              .maxInboundMessageSize(256 << 20)
              .build()
              .start();
    } catch (IOException e) {
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
    this.channel =
        ControlPlane.channel(jobManagerHost, jobManagerPort)
            .intercept(Secrets.client(secret))
            .maxInboundMessageSize(64 << 20)
            .build();
    this.jobManager = JobManagerServiceGrpc.newBlockingStub(channel);
    LOG.info(
        "TaskManager {} started with {} slots, control port {}:{}; registering with the JobManager"
            + " at {}",
        id,
        slots,
        bindHost,
        server.getPort(),
        jobManagerAddress);
    timer.execute(() -> register(1, 500));
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

  private void register(int attempt, long backoff) {
    if (closed) {
      return;
    }
    try {
      RegisterTaskManagerResponse response =
          jobManager
              .withDeadlineAfter(10, TimeUnit.SECONDS)
              .registerTaskManager(
                  RegisterTaskManagerRequest.newBuilder()
                      .setTaskManagerId(id)
                      .setHost(advertisedHost)
                      .setPort(server.getPort())
                      .setDataPort(dataPlane.port())
                      .setSlots(slots)
                      .build());
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
        StatusFile.write(
            statusFile,
            Map.of(
                "pid", String.valueOf(ProcessHandle.current().pid()),
                "id", id,
                "rpc.port", String.valueOf(server.getPort()),
                "data.port", String.valueOf(dataPlane.port()),
                "jobmanager", jobManagerAddress));
      }
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
              () -> register(attempt + 1, Math.min(MAX_BACKOFF_MILLIS, backoff * 2)),
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
            "The JobManager at {} does not know this TaskManager (any more): cancelling its tasks"
                + " and registering again",
            jobManagerAddress);
        reconnect();
        return;
      }
    } catch (RuntimeException e) {
      long silent = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - lastHeardFromJobManager);
      if (silent > heartbeatTimeout) {
        LOG.warn(
            "The JobManager at {} is lost: nothing heard for {} ms ({} = {}); cancelling this"
                + " TaskManager's tasks and registering again",
            jobManagerAddress,
            silent,
            ClusterOptions.HEARTBEAT_TIMEOUT.key(),
            heartbeatTimeout);
        reconnect();
        return;
      }
    }
    var unused = timer.schedule(this::heartbeat, heartbeatInterval, TimeUnit.MILLISECONDS);
  }

  private void reconnect() {
    registered = false;
    for (JobOnTaskManager job : jobsSnapshot()) {
      job.cancelAll();
      job.release();
    }
    timer.execute(() -> register(1, 500));
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
        new JobOnTaskManager(payload, jar, jobManager, outbox, dataPlane, this::jobClosed);
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
    channel.shutdownNow();
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
