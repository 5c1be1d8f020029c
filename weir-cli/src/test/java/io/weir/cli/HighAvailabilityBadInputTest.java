package io.weir.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code weir jobmanager} with high-availability settings that cannot work: it exits non-zero at
 * once with a message naming the key at fault, without a stack trace and without retrying forever.
 */
class HighAvailabilityBadInputTest {

  @TempDir Path dir;

  private Cli.Result jobManager(String... settings) {
    String[] args = new String[2 + settings.length * 2 + 6];
    int i = 0;
    args[i++] = "jobmanager";
    args[i++] = "-D";
    args[i++] = "high-availability.type=zookeeper";
    for (String s : settings) {
      args[i++] = "-D";
      args[i++] = s;
    }
    args[i++] = "-D";
    args[i++] = "jobmanager.rpc.port=0";
    args[i++] = "-D";
    args[i++] = "rest.port=0";
    return Cli.run(java.util.Arrays.copyOf(args, i));
  }

  private static int closedPort() throws Exception {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  @Test
  void aQuorumNobodyAnswersIsNamedAfterTheConnectionTimeout() throws Exception {
    String quorum = "127.0.0.1:" + closedPort();

    Cli.Result result =
        jobManager(
            "high-availability.zookeeper.quorum=" + quorum,
            "high-availability.storageDir=" + dir.resolve("ha").toUri(),
            "high-availability.zookeeper.client.connection-timeout=1 s");

    assertThat(result.exitCode()).as(result.toString()).isNotZero();
    assertThat(result.err())
        .contains("Cannot reach ZooKeeper at '" + quorum + "' (high-availability.zookeeper.quorum)")
        .contains("high-availability.zookeeper.client.connection-timeout")
        .doesNotContain("\tat ");
  }

  @Test
  void aMisspelledQuorumKeyLeavesTheQuorumUnsetAndSaysSo() {
    Cli.Result result =
        jobManager(
            "high-availability.zookeeper.qourum=127.0.0.1:2181",
            "high-availability.storageDir=" + dir.resolve("ha").toUri());

    assertThat(result.exitCode()).as(result.toString()).isNotZero();
    assertThat(result.err())
        .contains("high-availability.zookeeper.quorum is not set")
        .doesNotContain("\tat ");
  }

  @Test
  void aStorageDirectoryThatCannotBeWrittenIsRefusedNamingTheKey() throws Exception {
    Path file = Files.writeString(dir.resolve("a-file"), "not a directory");

    Cli.Result result =
        jobManager(
            "high-availability.zookeeper.quorum=127.0.0.1:" + closedPort(),
            "high-availability.storageDir=" + file.resolve("ha"));

    assertThat(result.exitCode()).as(result.toString()).isNotZero();
    assertThat(result.err())
        .contains("Cannot write to the high-availability storage directory")
        .contains("(high-availability.storageDir)")
        .doesNotContain("\tat ");
  }
}
