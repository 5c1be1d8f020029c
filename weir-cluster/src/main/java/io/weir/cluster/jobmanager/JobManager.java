package io.weir.cluster.jobmanager;

import io.grpc.Server;
import io.grpc.ServerInterceptors;
import io.weir.api.CollectEndpoint;
import io.weir.cluster.ClusterOptions;
import io.weir.cluster.StatusFile;
import io.weir.cluster.ha.HighAvailabilityOptions;
import io.weir.cluster.ha.LeaderElection;
import io.weir.cluster.ha.LeaderEpoch;
import io.weir.cluster.ha.ZooKeeperHaServices;
import io.weir.cluster.metrics.CheckpointSpans;
import io.weir.cluster.metrics.ProcessMetrics;
import io.weir.cluster.rest.RestServer;
import io.weir.cluster.rest.handlers.JobManagerEndpoints;
import io.weir.cluster.rpc.ControlPlane;
import io.weir.cluster.rpc.JarStore;
import io.weir.cluster.rpc.Secrets;
import java.io.IOException;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A JobManager process: the control port (gRPC) TaskManagers register at, the REST port clients
 * submit and watch jobs through, the TaskManagers it knows and the jobs it runs. Both ports bind to
 * 127.0.0.1 unless configured otherwise.
 */
public final class JobManager implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(JobManager.class);

  private final ScheduledExecutorService timer =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "weir-jobmanager-heartbeats");
            t.setDaemon(true);
            return t;
          });
  private final TaskManagerRegistry registry;

  /**
   * The epoch this JobManager leads with under high availability, sent with every call to a
   * TaskManager; 0 while it does not lead, or without high availability.
   */
  private final AtomicLong leaderEpoch = new AtomicLong();

  private final Server rpc;
  private final RestServer rest;
  private final JobManagerEndpoints endpoints;

  /** ZooKeeper's services under high availability, else null. */
  private final ZooKeeperHaServices haServices;

  /** This JobManager's part in the leader election under high availability, else null. */
  private final LeaderElection election;

  /** The process's metrics: this JobManager's own, or those it shares with a TaskManager. */
  private final ProcessMetrics metrics;

  /** Where the spans of its jobs' checkpoints go. */
  private CheckpointSpans spans;

  /** Whether {@link #metrics} are this JobManager's own, closed with it. */
  private final boolean ownsMetrics;

  /**
   * Starts a JobManager, with a Prometheus endpoint of its own when {@code
   * metrics.reporter.prom.port} is set.
   *
   * @throws IllegalArgumentException naming the setting at fault, or the address already in use
   */
  public JobManager(ClusterOptions options) throws IOException, InterruptedException {
    this(options, null);
  }

  /**
   * Starts a JobManager that reports its jobs' metrics to {@code metrics}, the process's, which the
   * caller closes (the local session cluster shares them with its TaskManager); null: its own, as
   * {@link #JobManager(ClusterOptions)}.
   *
   * @throws IllegalArgumentException naming the setting at fault, or the address already in use
   */
  public JobManager(ClusterOptions options, ProcessMetrics metrics)
      throws IOException, InterruptedException {
    for (String key : options.unknownKeys()) {
      LOG.warn("Ignoring the setting {}: neither this process nor a job reads it", key);
    }
    for (String warning : options.warnings()) {
      LOG.warn(warning);
    }
    String secret = options.secret();
    this.registry =
        new TaskManagerRegistry(
            secret,
            options.get(ClusterOptions.HEARTBEAT_INTERVAL),
            options.get(ClusterOptions.HEARTBEAT_TIMEOUT),
            options.get(ClusterOptions.EVENLY_SPREAD_OUT_SLOTS),
            timer,
            leaderEpoch::get);
    String uploadDir = options.get(ClusterOptions.UPLOAD_DIR);
    Path jarDir =
        uploadDir != null
            ? Path.of(uploadDir)
            : Path.of(
                System.getProperty("java.io.tmpdir"),
                "weir-jobmanager-" + ProcessHandle.current().pid(),
                "jars");
    boolean ha = HighAvailabilityOptions.isZooKeeper(options.configuration());
    timer.execute(TaskManagerRegistry::warmUpClients);
    // Connects and checks the storage directory before any port opens: a wrong quorum or an
    // unwritable directory is refused at start, naming its key.
    this.haServices = ha ? ZooKeeperHaServices.start(options.configuration()) : null;
    this.ownsMetrics = metrics == null;
    try {
      this.metrics =
          metrics != null
              ? metrics
              : ProcessMetrics.start(options, options.get(ClusterOptions.JM_BIND_HOST));
    } catch (RuntimeException e) {
      timer.shutdownNow();
      closeHa();
      throw e;
    }
    try {
      this.spans = CheckpointSpans.start(options);
    } catch (RuntimeException e) {
      timer.shutdownNow();
      closeHa();
      closeMetrics();
      throw e;
    }
    Dispatcher dispatcher =
        new Dispatcher(new JarStore(jarDir), registry, options, ha, this.metrics, spans, timer);
    String rpcHost = options.get(ClusterOptions.JM_BIND_HOST);
    int rpcPort = options.get(ClusterOptions.JM_PORT);
    // The programs this JobManager runs receive executeAndCollect's results where TaskManagers
    // reach it.
    CollectEndpoint.listenOn(rpcHost, options.get(ClusterOptions.JM_ADDRESS));
    try {
      this.rpc =
          ControlPlane.server(new InetSocketAddress(rpcHost, rpcPort))
              .addService(
                  ServerInterceptors.intercept(
                      new JobManagerRpc(registry, dispatcher, options),
                      Secrets.server(secret, "JobManager's control port")))
              .maxInboundMessageSize(64 << 20)
              .build()
              .start();
    } catch (IOException e) {
      timer.shutdownNow();
      closeHa();
      closeMetrics();
      throw bindFailure("control", rpcHost, rpcPort, ClusterOptions.JM_PORT.key(), e);
    }
    this.endpoints = new JobManagerEndpoints(dispatcher, registry);
    String restHost = options.get(ClusterOptions.REST_BIND_ADDRESS);
    int restPort = options.get(ClusterOptions.REST_PORT);
    try {
      this.rest = new RestServer(endpoints.router(), secret, restHost, restPort);
    } catch (Exception e) {
      rpc.shutdownNow();
      timer.shutdownNow();
      closeHa();
      closeMetrics();
      throw bindFailure("REST", restHost, restPort, ClusterOptions.REST_PORT.key(), e);
    }
    LOG.info(
        "JobManager started: control port {}:{}, REST port {}:{}, jars in {}{}{}",
        rpcHost,
        rpcPort(),
        restHost,
        restPort(),
        jarDir,
        this.metrics.enabled() ? ", metrics on port " + this.metrics.port() : "",
        secret != null ? ", secret required" : "");
    if (ha) {
      String host = options.get(ClusterOptions.JM_ADDRESS);
      this.election =
          haServices.leaderElection(
              "jobmanager-" + host + ":" + rpcPort() + "-" + ProcessHandle.current().pid(),
              host + ":" + rpcPort(),
              host + ":" + restPort(),
              new LeaderElection.Contender() {
                @Override
                public void grantLeadership(LeaderEpoch epoch) {
                  leaderEpoch.set(epoch.value());
                  dispatcher.grantLeadership(new LeaderSession(haServices, epoch));
                }

                @Override
                public void revokeLeadership() {
                  leaderEpoch.set(0);
                  dispatcher.revokeLeadership();
                }
              });
    } else {
      this.election = null;
    }
    String statusFile = options.get(ClusterOptions.STATUS_FILE);
    if (statusFile != null) {
      Map<String, String> status = new LinkedHashMap<>();
      status.put("pid", String.valueOf(ProcessHandle.current().pid()));
      status.put("rpc.address", rpcHost + ":" + rpcPort());
      status.put("rpc.port", String.valueOf(rpcPort()));
      status.put("rest.address", restHost + ":" + restPort());
      status.put("rest.port", String.valueOf(restPort()));
      if (this.metrics.enabled()) {
        status.put("metrics.port", String.valueOf(this.metrics.port()));
      }
      StatusFile.write(Path.of(statusFile), status);
    }
  }

  private static IllegalArgumentException bindFailure(
      String what, String host, int port, String key, Exception e) {
    Throwable cause = e.getCause() instanceof BindException b ? b : e;
    return new IllegalArgumentException(
        "Cannot open the JobManager's "
            + what
            + " port on "
            + host
            + ":"
            + port
            + " ("
            + cause.getMessage()
            + "): choose another with -D "
            + key
            + "=PORT",
        e);
  }

  public int rpcPort() {
    return rpc.getPort();
  }

  public int restPort() {
    return rest.port();
  }

  /** The address the control port is bound to ({@code jobmanager.bind-host}). */
  public InetSocketAddress rpcAddress() {
    return (InetSocketAddress) rpc.getListenSockets().get(0);
  }

  /** The address the REST port is bound to ({@code rest.bind-address}). */
  public InetSocketAddress restAddress() {
    return rest.address();
  }

  /**
   * Completes once the outcome of every savepoint and stop triggered for the job through the REST
   * API has been sent to a client that asked for it.
   */
  public CompletableFuture<Void> savepointOutcomesSent(String jobId) {
    return endpoints.savepointOutcomesSent(jobId);
  }

  /** Blocks until the process is stopped. */
  public void awaitTermination() throws InterruptedException {
    rpc.awaitTermination();
  }

  @Override
  public void close() throws InterruptedException {
    if (election != null) {
      election.close();
    }
    rest.close();
    rpc.shutdownNow();
    rpc.awaitTermination(5, TimeUnit.SECONDS);
    registry.close();
    timer.shutdownNow();
    closeHa();
    closeMetrics();
  }

  private void closeMetrics() {
    if (ownsMetrics) {
      metrics.close();
    }
    if (spans != null) {
      spans.close();
    }
  }

  private void closeHa() {
    if (haServices != null) {
      haServices.close();
    }
  }
}
