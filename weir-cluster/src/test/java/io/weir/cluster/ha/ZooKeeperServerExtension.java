package io.weir.cluster.ha;

import java.nio.file.Files;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * One real ZooKeeper server for a test class ({@link HaTesting#server}: ticks of 200 ms), started
 * before its first test and stopped, with its data, after its last. Register it as a static field
 * with {@code @RegisterExtension}.
 */
final class ZooKeeperServerExtension implements BeforeAllCallback, AfterAllCallback {

  private TestingServer server;

  @Override
  public void beforeAll(ExtensionContext context) throws Exception {
    server = HaTesting.server(Files.createTempDirectory("zookeeper-"));
  }

  @Override
  public void afterAll(ExtensionContext context) throws Exception {
    if (server != null) {
      server.close();
    }
  }

  /** The quorum of this one server, as {@code high-availability.zookeeper.quorum} takes it. */
  String connectString() {
    return server.getConnectString();
  }

  /** The server's client port on 127.0.0.1. */
  int port() {
    return server.getPort();
  }
}
