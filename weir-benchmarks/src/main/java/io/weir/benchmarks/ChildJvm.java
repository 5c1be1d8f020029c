package io.weir.benchmarks;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;

/**
 * Runs one measurement in a fresh JVM: the same {@code java} binary as this one, the given heap,
 * and the engine's class path ({@link ClassPaths}: {@code target/classes} plus {@code
 * target/classpath-weir.txt} or {@code classpath-flink.txt}, which {@code mvn package} writes).
 * Called from the runner's main thread only.
 */
final class ChildJvm {
  private static final int TAIL_LINES = 60;

  private final String java;
  private final ClassPaths classpaths;
  private final List<String> jvmOptions;
  private final long timeoutSeconds;

  ChildJvm(ClassPaths classpaths, String xmx, List<String> jvmArgs, long timeoutSeconds) {
    this.java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    this.classpaths = classpaths;
    List<String> options = new ArrayList<>();
    options.add("-Xmx" + xmx);
    options.addAll(jvmArgs);
    this.jvmOptions = List.copyOf(options);
    this.timeoutSeconds = timeoutSeconds;
  }

  /** The options every child JVM gets, heap first, for the report. */
  List<String> jvmOptions() {
    return jvmOptions;
  }

  /**
   * Runs {@code workload} once on {@code engine} and returns the child's single {@code RESULT}.
   *
   * @throws ChildFailure if the child fails, times out, or prints no (or more than one, or the
   *     wrong) {@code RESULT} line; the exception carries the tail of the child's output
   */
  Result run(Workload workload, Engine engine, String config, long records)
      throws ChildFailure, IOException, InterruptedException {
    Class<?> main =
        workload
            .main(engine)
            .orElseThrow(
                () ->
                    new IllegalArgumentException(
                        "Workload " + workload.id() + " has no " + engine.id() + " main."));
    String classpath = classpaths.of(engine);
    List<String> command = new ArrayList<>();
    command.add(java);
    command.addAll(jvmOptions);
    command.addAll(List.of("-cp", classpath, main.getName(), config, Long.toString(records)));
    // Engines leave files in the temporary directory (Flink: its RPC jar and mini-cluster
    // directories, tens of MB a run), so each child gets its own, deleted when it ends.
    try (TempDir scratch =
        TempDir.create("weir-bench-" + workload.id() + "-" + engine.id() + "-")) {
      List<String> launch = new ArrayList<>(command);
      launch.add(1, "-Djava.io.tmpdir=" + scratch.path());
      Path output = scratch.path().resolve("output.log");
      Process process =
          new ProcessBuilder(launch)
              .redirectErrorStream(true)
              .redirectOutput(output.toFile())
              .start();
      process.getOutputStream().close();
      if (!process.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor();
        throw failure(command, engine, output, "did not finish within " + timeoutSeconds + " s");
      }
      if (process.exitValue() != 0) {
        throw failure(command, engine, output, "exited with code " + process.exitValue());
      }
      List<String> lines = read(output);
      List<Result> results = lines.stream().map(Result::parse).flatMap(Optional::stream).toList();
      if (results.size() != 1) {
        throw failure(
            command,
            engine,
            output,
            results.isEmpty()
                ? "printed no RESULT line"
                : "printed " + results.size() + " RESULT lines, not one");
      }
      Result result = results.get(0);
      if (result.engine() != engine
          || !result.workload().equals(workload.id())
          || !result.config().equals(config)
          // A timed workload prints the records that reached its sink, not the source's bound.
          || (!workload.timed() && result.records() != records)) {
        throw failure(
            command, engine, output, "printed a RESULT for another run: " + result.line());
      }
      // Printed by ChildMain once the measurement is over; absent where /proc cannot be read.
      OptionalLong peakRss = PeakRss.lastIn(lines);
      return peakRss.isPresent() ? result.withPeakRssKb(peakRss.getAsLong()) : result;
    }
  }

  private ChildFailure failure(List<String> command, Engine engine, Path output, String what)
      throws IOException {
    List<String> lines = read(output);
    List<String> tail = lines.subList(Math.max(0, lines.size() - TAIL_LINES), lines.size());
    StringBuilder message = new StringBuilder();
    message
        .append("Benchmark child ")
        .append(what)
        .append(".\nCommand: ")
        .append(String.join(" ", command).replace(classpaths.of(engine), ClassPaths.shown(engine)))
        .append("\nLast ")
        .append(tail.size())
        .append(" of ")
        .append(lines.size())
        .append(" output lines:\n");
    for (String line : tail) {
      message.append("  | ").append(line).append('\n');
    }
    message.append("Run that command by hand in weir-benchmarks/ to see the whole output.");
    return new ChildFailure(message.toString());
  }

  private static List<String> read(Path output) throws IOException {
    return new String(Files.readAllBytes(output), StandardCharsets.UTF_8).lines().toList();
  }

  /** A child JVM that did not produce its measurement; the message holds its output's tail. */
  static final class ChildFailure extends Exception {
    private static final long serialVersionUID = 1L;

    ChildFailure(String message) {
      super(message);
    }
  }
}
