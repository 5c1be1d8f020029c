package io.weir.benchmarks.kafka;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A running {@link KafkaServer} helper JVM ({@code -Xmx1g}, the same class path whichever engine is
 * measured) and its bootstrap address. Started and closed by a benchmark main on its main thread,
 * outside the timed part.
 */
final class BrokerProcess implements AutoCloseable {
  static final String BROKER_CLASSPATH_FILE = "classpath-kafka.txt";
  static final String WEIR_CLASSPATH_FILE = "classpath-weir.txt";

  private final Process process;
  private final String bootstrapServers;

  private BrokerProcess(Process process, String bootstrapServers) {
    this.process = process;
    this.bootstrapServers = bootstrapServers;
  }

  String bootstrapServers() {
    return bootstrapServers;
  }

  static BrokerProcess start() throws IOException, InterruptedException {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    String classpath = brokerClasspath();
    List<String> command =
        List.of(
            java,
            "-Xmx1g",
            "-Djava.io.tmpdir=" + System.getProperty("java.io.tmpdir"),
            "-cp",
            classpath,
            KafkaServer.class.getName());
    Process process =
        new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    try {
      return new BrokerProcess(process, readBootstrap(process));
    } catch (IOException | RuntimeException e) {
      stop(process);
      throw e;
    }
  }

  private static String readBootstrap(Process process) throws IOException {
    BufferedReader lines =
        new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
    String bootstrap = null;
    String prefix = KafkaServer.SETTING + KafkaServer.BOOTSTRAP_SERVERS + " ";
    for (String line; (line = lines.readLine()) != null; ) {
      if (line.equals(KafkaServer.READY) && bootstrap != null) {
        Thread drain = new Thread(() -> lines.lines().forEach(System.err::println));
        drain.setDaemon(true); // the helper's later output, so that its pipe never fills
        drain.start();
        return bootstrap;
      }
      if (line.startsWith(prefix)) {
        bootstrap = line.substring(prefix.length()).strip();
      }
    }
    throw new IOException(
        "The Kafka broker helper exited before it was ready; its output is above.");
  }

  @Override
  public void close() throws InterruptedException {
    stop(process);
  }

  private static void stop(Process process) throws InterruptedException {
    try {
      process.getOutputStream().close(); // the helper stops its broker and exits
    } catch (IOException e) {
      // already gone
    }
    if (!process.waitFor(60, TimeUnit.SECONDS)) {
      process.destroyForcibly().waitFor();
    }
  }

  /**
   * The same for both engines' runs: this module's {@code target/classes}, {@code
   * classpath-weir.txt} (kafka-clients and SLF4J at the versions the engines use; no Flink) and
   * {@code classpath-kafka.txt} (the broker).
   */
  private static String brokerClasspath() throws IOException {
    Path classes;
    try {
      classes =
          Path.of(KafkaServer.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    } catch (URISyntaxException e) {
      throw new IOException(e);
    }
    StringBuilder classpath = new StringBuilder(classes.toString());
    for (String name : List.of(WEIR_CLASSPATH_FILE, BROKER_CLASSPATH_FILE)) {
      Path file = classes.resolveSibling(name);
      if (!Files.isRegularFile(file)) {
        throw new IOException(
            "Missing " + file + ": build with 'mvn -pl weir-benchmarks -am package' first.");
      }
      classpath.append(File.pathSeparator).append(Files.readString(file).strip());
    }
    return classpath.toString();
  }
}
