package io.weir.cluster;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A JobManager and two one-slot TaskManagers whose every connection runs through a {@link
 * FaultyProxy} the test controls. Each TaskManager binds its data port behind a proxy and
 * advertises the proxy's port ({@code taskmanager.data.bind-port} and {@code
 * taskmanager.data.port}, as behind NAT), so a job of parallelism 2's keyed exchange crosses them;
 * both reach the JobManager through one proxy (their {@code --jobmanager}), so their registrations,
 * heartbeats, task reports and checkpoint acknowledgements do; and the JobManager reaches each
 * through its own ({@code taskmanager.rpc.bind-port} behind the advertised {@code
 * taskmanager.rpc.port}), so its deployments, triggers, cancellations and heartbeats do.
 */
final class ProxiedCluster implements AutoCloseable {

  final TestCluster cluster;

  /**
   * In front of each TaskManager's data port: TaskManager i's producers serve through {@code
   * data.get(i)}.
   */
  final List<FaultyProxy> data = new ArrayList<>();

  /** In front of the JobManager's control port, for both TaskManagers. */
  final FaultyProxy toJobManager;

  /** In front of each TaskManager's control port, for the JobManager. */
  final List<FaultyProxy> toTaskManagers = new ArrayList<>();

  final String jarId;

  ProxiedCluster(String name, Map<String, String> settings) throws Exception {
    cluster = new TestCluster(name, settings);
    cluster.startJobManager();
    toJobManager = new FaultyProxy(cluster.rpcPort);
    for (int i = 0; i < 2; i++) {
      int dataBindPort = freePort();
      FaultyProxy dataProxy = new FaultyProxy(dataBindPort);
      data.add(dataProxy);
      int rpcBindPort = freePort();
      FaultyProxy rpcProxy = new FaultyProxy(rpcBindPort);
      toTaskManagers.add(rpcProxy);
      cluster.startTaskManager(
          "127.0.0.1:" + toJobManager.port(),
          1,
          Map.of(
              ClusterOptions.TM_DATA_BIND_PORT.key(), String.valueOf(dataBindPort),
              ClusterOptions.TM_DATA_PORT.key(), String.valueOf(dataProxy.port()),
              ClusterOptions.TM_RPC_BIND_PORT.key(), String.valueOf(rpcBindPort),
              ClusterOptions.TM_PORT.key(), String.valueOf(rpcProxy.port())));
    }
    jarId = cluster.client.upload(TestCluster.testJobJar(cluster.dir.resolve("job.jar"), null));
  }

  /** The control-plane proxies: the one to the JobManager, then those to the TaskManagers. */
  List<FaultyProxy> control() {
    List<FaultyProxy> all = new ArrayList<>(List.of(toJobManager));
    all.addAll(toTaskManagers);
    return all;
  }

  /** Data connections open now with both directions flowing. */
  int openDataConnections() {
    return data.stream().mapToInt(FaultyProxy::open).sum();
  }

  /** Failures the job master recorded so far: one per restart. */
  long restartsOf(String jobId) throws Exception {
    return cluster.exceptionMessages(jobId).size();
  }

  /** A port free now on 127.0.0.1, for a TaskManager to bind behind its proxy. */
  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  @Override
  public void close() {
    data.forEach(FaultyProxy::close);
    control().forEach(FaultyProxy::close);
    cluster.close();
  }
}
