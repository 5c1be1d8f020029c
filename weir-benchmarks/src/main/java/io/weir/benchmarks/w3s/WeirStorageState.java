package io.weir.benchmarks.w3s;

import io.weir.benchmarks.ChildMain;
import io.weir.benchmarks.JobArgs;
import io.weir.benchmarks.w3.WeirLargeState;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * W3S on Weir: W3's job ({@link WeirLargeState#run}) with its checkpoints on local disk, or on HDFS
 * or S3 served by a {@link StorageServer} helper JVM on 127.0.0.1 that this main starts before the
 * job and stops after it (the helper's start is not timed).
 *
 * <p>Arguments: {@code <storage>-<backend> [records]}, see {@link W3sJob#CONFIGS}. Prints one
 * {@link io.weir.benchmarks.Result} line.
 */
public final class WeirStorageState {
  static final String STORAGE_CLASSPATH_FILE = "classpath-storage.txt";
  private static final long READY_TIMEOUT_SECONDS = 180;

  private WeirStorageState() {}

  public static void main(String[] args) {
    ChildMain.run(
        () -> {
          JobArgs job = JobArgs.parse(args, W3sJob.ID, W3sJob.CONFIGS, 10_000_000L);
          Storage storage = W3sJob.storage(job.config());
          JobArgs w3 = new JobArgs(W3sJob.backend(job.config()), job.records());
          if (storage == Storage.LOCAL) {
            W3sJob.result(
                    job.config(),
                    job.records(),
                    WeirLargeState.run(W3sJob.ID, w3, Map.of(), new WeirLargeState.WriteValue()))
                .print();
            return;
          }
          try (Helper helper = Helper.start(storage)) {
            W3sJob.result(
                    job.config(),
                    job.records(),
                    WeirLargeState.run(
                        W3sJob.ID, w3, helper.settings, new WeirLargeState.WriteValue()))
                .print();
          }
        });
  }

  /** A running {@link StorageServer} and the settings that reach it. */
  static final class Helper implements AutoCloseable {
    private final Process process;
    final Map<String, String> settings;

    private Helper(Process process, Map<String, String> settings) {
      this.process = process;
      this.settings = Map.copyOf(settings);
    }

    static Helper start(Storage storage) throws IOException, InterruptedException {
      String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
      String classpath =
          System.getProperty("java.class.path") + File.pathSeparator + storageClasspath();
      List<String> command =
          List.of(
              java,
              "-Xmx1g",
              "-Djava.io.tmpdir=" + System.getProperty("java.io.tmpdir"),
              // s3proxy brings Logback; the benchmarks log through slf4j-simple at WARN.
              "-Dslf4j.provider=org.slf4j.simple.SimpleServiceProvider",
              "-cp",
              classpath,
              StorageServer.class.getName(),
              storage.id());
      Process process =
          new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
      Helper helper = new Helper(process, Map.of());
      try {
        Map<String, String> settings = readSettings(process, storage);
        return new Helper(process, settings);
      } catch (IOException | RuntimeException e) {
        helper.close();
        throw e;
      }
    }

    private static Map<String, String> readSettings(Process process, Storage storage)
        throws IOException {
      Map<String, String> settings = new LinkedHashMap<>();
      // Read on this thread; the helper prints a few lines, then READY (or dies, ending them).
      BufferedReader lines =
          new BufferedReader(
              new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
      for (String line; (line = lines.readLine()) != null; ) {
        if (line.equals(StorageServer.READY)) {
          Thread drain = new Thread(() -> lines.lines().forEach(System.err::println));
          drain.setDaemon(true); // the helper's later output, so that its pipe never fills
          drain.start();
          return settings;
        }
        if (line.startsWith(StorageServer.SETTING)) {
          String[] keyValue = line.substring(StorageServer.SETTING.length()).split(" ", 2);
          settings.put(keyValue[0], keyValue[1]);
        }
      }
      throw new IOException(
          "The "
              + storage.id()
              + " storage server exited before it was ready; its output is above.");
    }

    @Override
    public void close() throws InterruptedException {
      try {
        process.getOutputStream().close(); // the helper stops its server and exits
      } catch (IOException e) {
        // already gone
      }
      if (!process.waitFor(60, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor();
      }
    }
  }

  /** {@code target/classpath-storage.txt} beside this module's {@code target/classes}. */
  private static String storageClasspath() throws IOException {
    Path classes;
    try {
      classes =
          Path.of(
              WeirStorageState.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    } catch (java.net.URISyntaxException e) {
      throw new IOException(e);
    }
    Path file = classes.resolveSibling(STORAGE_CLASSPATH_FILE);
    if (!Files.isRegularFile(file)) {
      throw new IOException(
          "Missing " + file + ": build with 'mvn -pl weir-benchmarks -am package' first.");
    }
    return Files.readString(file).strip();
  }
}
