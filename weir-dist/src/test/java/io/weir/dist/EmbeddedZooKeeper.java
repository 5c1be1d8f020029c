package io.weir.dist;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.zookeeper.server.ServerCnxnFactory;
import org.apache.zookeeper.server.ZooKeeperServer;

/**
 * A standalone ZooKeeper server in the test JVM on 127.0.0.1 and a free port, from the ZooKeeper
 * jar the image itself carries (curator-test would change which versions the image's class path
 * resolves to, being a nearer dependency of this module).
 */
final class EmbeddedZooKeeper implements AutoCloseable {

  private final ZooKeeperServer server;
  private final ServerCnxnFactory connections;

  EmbeddedZooKeeper() throws IOException, InterruptedException {
    Path dir =
        Files.createTempDirectory(Path.of(System.getProperty("java.io.tmpdir")), "zookeeper");
    server = new ZooKeeperServer(dir.toFile(), dir.toFile(), 200);
    connections =
        ServerCnxnFactory.createFactory(
            new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 100);
    connections.startup(server);
  }

  /** The quorum to name in high-availability.zookeeper.quorum. */
  String connectString() {
    return "127.0.0.1:" + connections.getLocalPort();
  }

  @Override
  public void close() {
    connections.shutdown();
    server.shutdown();
  }
}
