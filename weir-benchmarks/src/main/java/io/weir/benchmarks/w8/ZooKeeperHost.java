package io.weir.benchmarks.w8;

import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;
import org.apache.zookeeper.server.ServerConfig;
import org.apache.zookeeper.server.ZooKeeperServerMain;

/**
 * The main of {@link ZooKeeperServer}'s JVM: {@code ZooKeeperHost <zoo.cfg> <report-file>
 * <znode>...} runs ZooKeeper's own standalone server ({@code ZooKeeperServerMain}) and, through a
 * client of it in the same JVM, reads each given znode every {@link #POLL_MILLIS} ms, appending a
 * line to the report file whenever one changes: {@code <znode> <seen at, epoch ms> <mtime, epoch
 * ms> <data, base64>}, or {@code <znode> <seen at> - -} once it is gone. The benchmark JVM reads
 * that file: ZooKeeper's client needs Netty, which neither engine's benchmark class path has.
 * Serves until the process is killed.
 */
public final class ZooKeeperHost {
  static final long POLL_MILLIS = 5;

  private ZooKeeperHost() {}

  public static void main(String[] args) throws Exception {
    ServerConfig config = new ServerConfig();
    config.parse(args[0]);
    Path report = Path.of(args[1]);
    List<String> znodes = Arrays.asList(args).subList(2, args.length);
    Thread server =
        new Thread(
            () -> {
              try {
                new ZooKeeperServerMain().runFromConfig(config);
              } catch (Exception e) {
                e.printStackTrace();
                Runtime.getRuntime().halt(1);
              }
            },
            "zookeeper-server");
    server.start();
    String connect = "127.0.0.1:" + config.getClientPortAddress().getPort();
    ZooKeeper client = new ZooKeeper(connect, 30_000, event -> {});
    List<String> last = new ArrayList<>();
    znodes.forEach(z -> last.add(""));
    try (OutputStream out =
        Files.newOutputStream(report, StandardOpenOption.CREATE, StandardOpenOption.APPEND)) {
      while (true) {
        if (client.getState().isConnected()) {
          for (int i = 0; i < znodes.size(); i++) {
            String now = read(client, znodes.get(i));
            if (now != null && !now.equals(last.get(i))) {
              last.set(i, now);
              String line = znodes.get(i) + " " + System.currentTimeMillis() + " " + now + "\n";
              out.write(line.getBytes(StandardCharsets.US_ASCII));
              out.flush();
            }
          }
        }
        Thread.sleep(POLL_MILLIS);
      }
    }
  }

  /** {@code <mtime> <base64>}, {@code - -} when absent, null when it cannot be told now. */
  private static String read(ZooKeeper client, String znode) throws InterruptedException {
    try {
      Stat stat = new Stat();
      byte[] data = client.getData(znode, false, stat);
      return stat.getMtime()
          + " "
          + Base64.getEncoder().encodeToString(data == null ? new byte[0] : data);
    } catch (KeeperException.NoNodeException e) {
      return "- -";
    } catch (KeeperException e) {
      return null;
    }
  }
}
