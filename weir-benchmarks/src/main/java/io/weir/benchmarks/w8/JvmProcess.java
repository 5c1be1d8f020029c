package io.weir.benchmarks.w8;

import io.weir.benchmarks.PeakRss;
import java.io.IOException;
import java.io.InputStream;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One JobManager or TaskManager JVM of a W8 cluster: started through {@link OrphanGuard} with its
 * output in a log file, killed with SIGKILL by {@link #kill} and {@link #close}. Used from the
 * benchmark's main thread.
 */
final class JvmProcess implements AutoCloseable {
  private final String name;
  private final Process process;
  private final Path log;

  /** The peak RSS read just before {@link #kill}: a dead process has no /proc entry left. */
  private OptionalLong peakRssAtKillKb = OptionalLong.empty();

  private JvmProcess(String name, Process process, Path log) {
    this.name = name;
    this.process = process;
    this.log = log;
  }

  /**
   * Starts {@code mainClass} with {@code args} in a new JVM of this machine's {@code java}.
   *
   * @param dir the run's scratch directory: the log, the JVM's temporary directory and the copy of
   *     {@link OrphanGuard} go there
   */
  static JvmProcess start(
      String name,
      Path dir,
      String classpath,
      List<String> jvmOptions,
      String mainClass,
      List<String> args)
      throws IOException {
    Path log = dir.resolve(name + ".log");
    Path tmp = Files.createDirectories(dir.resolve("tmp-" + name));
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(jvmOptions);
    command.add("-Djava.io.tmpdir=" + tmp);
    command.add("-cp");
    command.add(guardClasses(dir) + java.io.File.pathSeparator + classpath);
    command.add(OrphanGuard.class.getName());
    command.add(Long.toString(ProcessHandle.current().pid()));
    command.add(mainClass);
    command.addAll(args);
    Process process =
        new ProcessBuilder(command)
            .directory(dir.toFile())
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();
    process.getOutputStream().close();
    return new JvmProcess(name, process, log);
  }

  /** A directory holding only {@code OrphanGuard.class}, made once per run directory. */
  private static Path guardClasses(Path dir) throws IOException {
    Path classes = dir.resolve("guard-classes");
    String resource = OrphanGuard.class.getName().replace('.', '/') + ".class";
    Path target = classes.resolve(resource);
    if (!Files.exists(target)) {
      Files.createDirectories(target.getParent());
      try (InputStream in = OrphanGuard.class.getClassLoader().getResourceAsStream(resource)) {
        if (in == null) {
          throw new IOException("W8: cannot find " + resource + " on the class path");
        }
        Files.copy(in, target);
      }
    }
    return classes;
  }

  /** A port free on this machine now (another process may take it before it is used). */
  static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }

  String name() {
    return name;
  }

  String log() throws IOException {
    return new String(Files.readAllBytes(log), StandardCharsets.UTF_8);
  }

  /**
   * Waits for the first match of {@code pattern} in the log.
   *
   * @throws IOException if the process ends first or the time runs out, with the log's tail
   */
  Matcher awaitLog(Pattern pattern, Duration timeout) throws IOException, InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      Matcher m = pattern.matcher(log());
      if (m.find()) {
        return m;
      }
      checkAlive();
      if (System.nanoTime() > deadline) {
        throw failure("did not log /" + pattern + "/ within " + timeout.toSeconds() + " s");
      }
      Thread.sleep(50);
    }
  }

  /** Whether the process still runs. */
  boolean alive() {
    return process.isAlive();
  }

  /** Throws with the log's tail if the process has ended. */
  void checkAlive() throws IOException {
    if (!process.isAlive()) {
      throw failure("ended with code " + process.exitValue());
    }
  }

  IOException failure(String what) throws IOException {
    List<String> lines = log().lines().toList();
    List<String> tail = lines.subList(Math.max(0, lines.size() - 40), lines.size());
    return new IOException(
        "W8: "
            + name
            + " "
            + what
            + "; its log "
            + log
            + " ends:\n  | "
            + String.join("\n  | ", tail));
  }

  /**
   * The process's peak RSS in kB ({@link PeakRss}): so far while it runs, as it was just before
   * {@link #kill} after that; empty where it cannot be read.
   */
  OptionalLong peakRssKb() {
    if (process.isAlive()) {
      OptionalLong kb = PeakRss.ofProcessKb(process.pid());
      if (kb.isPresent()) {
        return kb;
      }
    }
    return peakRssAtKillKb;
  }

  /** SIGKILL, and waits until the process is gone. */
  void kill() throws InterruptedException {
    peakRssAtKillKb = PeakRss.ofProcessKb(process.pid());
    process.destroyForcibly();
    if (!process.waitFor(30, TimeUnit.SECONDS)) {
      throw new IllegalStateException("W8: " + name + " survived SIGKILL for 30 s");
    }
  }

  @Override
  public void close() {
    process.destroyForcibly();
    try {
      process.waitFor(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
