package io.weir.benchmarks;

import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * Where, when and how one invocation of the runner measured: the part that every {@link
 * ResultRecord} it writes shares. Built on the runner's main thread.
 *
 * @param commit {@code git rev-parse --short HEAD}, plus {@code -dirty} when tracked files have
 *     uncommitted changes; {@code unknown} where git or the repository is not there
 * @param date when the invocation started
 * @param command the whole command line
 * @param machine cores, memory, JDK, OS, CPU model and load averages, as far as they can be read
 */
record Provenance(String commit, Instant date, String command, Map<String, Object> machine) {
  static final String UNKNOWN = "unknown";

  Provenance {
    date = date.truncatedTo(ChronoUnit.SECONDS);
    machine = Map.copyOf(machine);
  }

  /**
   * This machine, with {@code commit} ({@link #commitOf}, read when the invocation started).
   *
   * @param loadAtStart the load averages when the invocation started, as {@link Report} read them
   */
  static Provenance ofThisMachine(
      String commit, Instant started, String command, String loadAtStart) {
    Map<String, Object> machine = new TreeMap<>();
    machine.put("cores", Runtime.getRuntime().availableProcessors());
    machine.put("memory", Report.totalMemory());
    machine.put(
        "jdk",
        System.getProperty("java.runtime.version")
            + " ("
            + System.getProperty("java.vm.name")
            + ", "
            + System.getProperty("java.vendor")
            + ")");
    machine.put(
        "os",
        System.getProperty("os.name")
            + " "
            + System.getProperty("os.version")
            + " "
            + System.getProperty("os.arch"));
    cpuModel().ifPresent(cpu -> machine.put("cpu", cpu));
    machine.put("loadAverageAtStart", loadAtStart);
    machine.put("loadAverageAtEnd", Report.loadAverage());
    return new Provenance(commit, started, command, machine);
  }

  /** A record of these figures from this invocation. */
  ResultRecord record(
      Engine engine,
      String workload,
      String configuration,
      Long records,
      int runs,
      Map<String, BigDecimal> figures) {
    return new ResultRecord(
        commit,
        date.toString(),
        engine.id(),
        workload,
        configuration,
        records,
        runs,
        new TreeMap<>(figures),
        command,
        machine);
  }

  /**
   * The files the runner and the table generator write: a change to them alone measures the same
   * code (else every invocation after the first of a series would say "dirty").
   */
  static final List<String> OWN_OUTPUTS = List.of("benchmarks/results.jsonl", "BENCHMARKS.md");

  /**
   * The commit checked out in {@code repository}, with {@code -dirty} when tracked files other than
   * {@link #OWN_OUTPUTS} differ from it (untracked files do not count, as for {@code git describe
   * --dirty}); {@code unknown} when git is not installed or {@code repository} is not a git work
   * tree.
   */
  static String commitOf(Path repository) {
    Optional<String> head = git(repository, "rev-parse", "--short", "HEAD");
    if (head.isEmpty() || head.get().isEmpty()) {
      return UNKNOWN;
    }
    List<String> status =
        new ArrayList<>(List.of("status", "--porcelain", "--untracked-files=no", "--", ":/"));
    OWN_OUTPUTS.forEach(path -> status.add(":(top,exclude)" + path));
    Optional<String> changes = git(repository, status.toArray(String[]::new));
    return changes.isPresent() && !changes.get().isEmpty() ? head.get() + "-dirty" : head.get();
  }

  /** Standard output of {@code git -C repository args}, stripped; empty if it failed. */
  private static Optional<String> git(Path repository, String... args) {
    List<String> command = new ArrayList<>(List.of("git", "-C", repository.toString()));
    command.addAll(List.of(args));
    try {
      Process process =
          new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD).start();
      process.getOutputStream().close();
      String output =
          new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        return Optional.empty();
      }
      return process.exitValue() == 0 ? Optional.of(output) : Optional.empty();
    } catch (IOException e) { // no git on the PATH
      return Optional.empty();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Optional.empty();
    }
  }

  /** The CPU's model name from {@code /proc/cpuinfo}, where there is one. */
  private static Optional<String> cpuModel() {
    try {
      return Files.readAllLines(Path.of("/proc/cpuinfo")).stream()
          .filter(line -> line.toLowerCase(Locale.ROOT).startsWith("model name"))
          .map(line -> line.substring(line.indexOf(':') + 1).strip())
          .findFirst();
    } catch (IOException | RuntimeException e) {
      return Optional.empty();
    }
  }
}
