package io.weir.benchmarks.kafka;

import io.weir.benchmarks.TempDir;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.metadata.storage.Formatter;
import org.apache.kafka.server.common.MetadataVersion;

/**
 * The helper JVM that serves KAFKA's broker on 127.0.0.1: one combined broker and controller in
 * KRaft mode, as weir-connector-kafka's tests start it, with its log under a fresh temporary
 * directory. Its own JVM, so that the broker's CPU and heap are the same for both engines and apart
 * from theirs. Its class path is Weir's plus {@code target/classpath-kafka.txt} (the broker is on
 * neither engine's class path).
 *
 * <p>No arguments. Prints {@code SETTING bootstrap.servers 127.0.0.1:<port>}, then {@code READY}
 * once the broker answers; serves until its standard input ends, then stops the broker, deletes its
 * log and exits.
 */
public final class KafkaServer {
  static final String READY = "READY";
  static final String SETTING = "SETTING ";
  static final String BOOTSTRAP_SERVERS = "bootstrap.servers";

  private KafkaServer() {}

  public static void main(String[] args) {
    int status = 0;
    try (TempDir logDir = TempDir.create("weir-kafka-broker-")) {
      int brokerPort = freePort();
      int controllerPort = freePort();
      KafkaRaftServer server = start(logDir, brokerPort, controllerPort);
      try {
        String bootstrap = "127.0.0.1:" + brokerPort;
        awaitAnswer(bootstrap);
        System.out.println(SETTING + BOOTSTRAP_SERVERS + " " + bootstrap);
        System.out.println(READY);
        System.out.flush();
        // Serve until the parent closes our standard input (or dies).
        while (System.in.read() >= 0) {
          // ignore
        }
      } finally {
        server.shutdown();
        server.awaitShutdown();
      }
    } catch (Throwable t) { // any failure must end the helper
      t.printStackTrace();
      status = 1;
    }
    System.out.flush();
    System.exit(status);
  }

  private static KafkaRaftServer start(TempDir logDir, int brokerPort, int controllerPort)
      throws Exception {
    Properties props = new Properties();
    props.put("process.roles", "broker,controller");
    props.put("node.id", "1");
    props.put("controller.quorum.voters", "1@127.0.0.1:" + controllerPort);
    props.put(
        "listeners",
        "PLAINTEXT://127.0.0.1:" + brokerPort + ",CONTROLLER://127.0.0.1:" + controllerPort);
    props.put("advertised.listeners", "PLAINTEXT://127.0.0.1:" + brokerPort);
    props.put("controller.listener.names", "CONTROLLER");
    props.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
    props.put("inter.broker.listener.name", "PLAINTEXT");
    props.put("log.dirs", logDir.path().toString());
    // A single node: every internal topic with one replica (see shared/REAL-COMPONENTS.md).
    props.put("offsets.topic.replication.factor", "1");
    props.put("offsets.topic.num.partitions", "2");
    props.put("transaction.state.log.replication.factor", "1");
    props.put("transaction.state.log.min.isr", "1");
    props.put("transaction.state.log.num.partitions", "2");
    props.put("group.initial.rebalance.delay.ms", "0");
    props.put("auto.create.topics.enable", "false");
    // transaction.max.timeout.ms stays at Kafka's default, 15 min (both sinks use 15 min).
    new Formatter()
        .setPrintStream(
            new PrintStream(OutputStream.nullOutputStream(), true, StandardCharsets.UTF_8))
        .setNodeId(1)
        .setClusterId(Uuid.randomUuid().toString())
        .setDirectories(List.of(logDir.path().toString()))
        .setMetadataLogDirectory(logDir.path().toString())
        .setControllerListenerName("CONTROLLER")
        .setReleaseVersion(MetadataVersion.latestProduction())
        .run();
    KafkaRaftServer server = new KafkaRaftServer(KafkaConfig.fromProps(props), Time.SYSTEM);
    server.startup();
    return server;
  }

  /** Waits until the broker lists itself, at most a minute. */
  private static void awaitAnswer(String bootstrap) throws Exception {
    Properties props = new Properties();
    props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    long deadline = System.nanoTime() + Duration.ofMinutes(1).toNanos();
    try (Admin admin = Admin.create(props)) {
      while (true) {
        try {
          if (!admin.describeCluster().nodes().get().isEmpty()) {
            return;
          }
        } catch (Exception e) {
          if (System.nanoTime() > deadline) {
            throw new IOException(
                "The Kafka broker at " + bootstrap + " did not answer in 1 min", e);
          }
        }
        Thread.sleep(50);
      }
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
      return socket.getLocalPort();
    }
  }
}
