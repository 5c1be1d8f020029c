package io.weir.benchmarks.w8;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Optional;

/**
 * A standalone ZooKeeper server (ZooKeeper's own {@code ZooKeeperServerMain}, the version Weir's
 * cluster is built with) in a JVM of its own on 127.0.0.1, the same for both engines' JobManagers
 * and TaskManagers; that JVM ({@link ZooKeeperHost}) also reports the znodes where a leading
 * JobManager publishes itself, which {@link #history} reads. {@code tickTime} is 500 ms, so a
 * session expires within half a second of its timeout (ZooKeeper checks expiry once a tick) and
 * timeouts from 1 s to 10 s are granted as asked. Used from the benchmark's main thread; {@link
 * #close} kills the server.
 */
final class ZooKeeperServer implements AutoCloseable {
  private static final Duration START_TIMEOUT = Duration.ofSeconds(60);

  private final JvmProcess process;
  private final int port;
  private final Path report;

  private ZooKeeperServer(JvmProcess process, int port, Path report) {
    this.process = process;
    this.port = port;
    this.report = report;
  }

  /**
   * Starts a server with its data under {@code dir} that reports {@code znodes}, and returns once
   * it accepts connections.
   */
  static ZooKeeperServer start(Path dir, List<String> znodes)
      throws IOException, InterruptedException {
    int port = JvmProcess.freePort();
    Path config = dir.resolve("zoo.cfg");
    Files.writeString(
        config,
        String.join(
            "\n",
            "tickTime=500",
            "dataDir=" + Files.createDirectories(dir.resolve("zookeeper-data")),
            "clientPort=" + port,
            "clientPortAddress=127.0.0.1",
            "maxClientCnxns=0",
            ""));
    // INFO for the server's own lines: "Expiring session 0x..., timeout of 6000ms exceeded".
    Path logback =
        WeirBenchCluster.writeLogback(
            dir.resolve("logback-zookeeper.xml"),
            List.of("org.apache.zookeeper.server.ZooKeeperServer"));
    Path report = dir.resolve("zookeeper-znodes.txt");
    List<String> args = new ArrayList<>(List.of(config.toString(), report.toString()));
    args.addAll(znodes);
    JvmProcess process =
        JvmProcess.start(
            "zookeeper",
            dir,
            W8Classpaths.zooKeeper(),
            List.of(
                "-Xmx256m",
                "-Dlogback.configurationFile=" + logback,
                "-Dzookeeper.admin.enableServer=false"),
            ZooKeeperHost.class.getName(),
            args);
    long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
    while (!accepts(port)) {
      process.checkAlive();
      if (System.nanoTime() > deadline) {
        throw process.failure("accepted no connection within " + START_TIMEOUT.toSeconds() + " s");
      }
      Thread.sleep(50);
    }
    return new ZooKeeperServer(process, port, report);
  }

  private static boolean accepts(int port) {
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress("127.0.0.1", port), 1000);
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  /** The quorum setting of the processes: {@code 127.0.0.1:<port>}. */
  String quorum() {
    return "127.0.0.1:" + port;
  }

  /**
   * One state of a reported znode.
   *
   * @param seenMillis when the server's JVM saw it (epoch ms, polled every {@value
   *     ZooKeeperHost#POLL_MILLIS} ms)
   * @param mtimeMillis when it was last written (ZooKeeper's clock), -1 when it is absent
   * @param data its data, null when it is absent
   */
  record Znode(long seenMillis, long mtimeMillis, byte[] data) {
    boolean present() {
      return data != null;
    }
  }

  /** Every state {@code znode} was seen in so far, oldest first. */
  List<Znode> history(String znode) throws IOException {
    List<Znode> states = new ArrayList<>();
    if (!Files.exists(report)) {
      return states;
    }
    for (String line : Files.readAllLines(report, StandardCharsets.US_ASCII)) {
      String[] f = line.split(" ", -1);
      if (f.length == 4 && f[0].equals(znode)) {
        boolean gone = f[2].equals("-");
        states.add(
            new Znode(
                Long.parseLong(f[1]),
                gone ? -1 : Long.parseLong(f[2]),
                gone ? null : Base64.getDecoder().decode(f[3])));
      }
    }
    return states;
  }

  /** The state {@code znode} was last seen in, if it was seen at all. */
  Optional<Znode> latest(String znode) throws IOException {
    List<Znode> states = history(znode);
    return states.isEmpty() ? Optional.empty() : Optional.of(states.get(states.size() - 1));
  }

  JvmProcess process() {
    return process;
  }

  @Override
  public void close() {
    process.close();
  }
}
