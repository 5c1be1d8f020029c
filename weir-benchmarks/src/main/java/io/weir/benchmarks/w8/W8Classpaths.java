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

  static String flink() throws IOException {
    return read("classpath-flink.txt");
  }

  private static String read(String name) throws IOException {
    Path classes;
    try {
      classes =
          Path.of(W8Classpaths.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    } catch (URISyntaxException e) {
      throw new IOException("W8: cannot locate target/classes", e);
    }
    Path file = classes.resolveSibling(name);
    if (!Files.isRegularFile(file)) {
      throw new IOException(
          "W8: missing " + file + ": build with 'mvn -pl weir-benchmarks -am package' first.");
    }
    return Files.readString(file).strip();
  }
}
