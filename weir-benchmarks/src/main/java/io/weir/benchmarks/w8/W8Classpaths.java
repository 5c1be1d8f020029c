package io.weir.benchmarks.w8;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The class paths of W8's cluster processes, from the files {@code mvn package} writes beside
 * {@code target/classes}: {@code classpath-weir-cluster.txt} for Weir's, {@code
 * classpath-flink.txt} for Flink's. Neither holds {@code target/classes}: the job reaches the
 * processes in its jar.
 */
final class W8Classpaths {
  private W8Classpaths() {}

  static String weirCluster() throws IOException {
    return read("classpath-weir-cluster.txt");
  }

  /**
   * JM-FAILOVER's ZooKeeper server ({@link ZooKeeperHost}): this module's classes, Weir's cluster
   * class path (ZooKeeper, the Netty its client needs, logback) and {@code classpath-zookeeper.txt}
   * (the metrics library ZooKeeper's server needs).
   */
  static String zooKeeper() throws IOException {
    return String.join(
        java.io.File.pathSeparator,
        classes().toString(),
        weirCluster(),
        read("classpath-zookeeper.txt"));
  }

  static String flink() throws IOException {
    return read("classpath-flink.txt");
  }

  private static Path classes() throws IOException {
    try {
      return Path.of(
          W8Classpaths.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    } catch (URISyntaxException e) {
      throw new IOException("W8: cannot locate target/classes", e);
    }
  }

  private static String read(String name) throws IOException {
    Path file = classes().resolveSibling(name);
    if (!Files.isRegularFile(file)) {
      throw new IOException(
          "W8: missing " + file + ": build with 'mvn -pl weir-benchmarks -am package' first.");
    }
    return Files.readString(file).strip();
  }
}
