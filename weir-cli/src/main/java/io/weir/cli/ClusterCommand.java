package io.weir.cli;

import static io.weir.cluster.ClusterOptions.STATUS_FILE;

import io.weir.cluster.ClusterOptions;
import io.weir.cluster.StatusFile;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code weir cluster start|stop}: a JobManager and N TaskManagers on this machine, in the
 * background, with a PID file, a log file and an {@code .out} file (standard output) each under one
 * directory.
 */
@Command(
    name = "cluster",
    mixinStandardHelpOptions = true,
    description = "Start or stop a JobManager and TaskManagers on this machine.",
    subcommands = {ClusterCommand.Start.class, ClusterCommand.Stop.class})
final class ClusterCommand implements Runnable {

  static Path defaultDir() {
    return Path.of(
        System.getProperty("java.io.tmpdir"), "weir-cluster-" + System.getProperty("user.name"));
  }

  @Override
  public void run() {
    throw new picocli.CommandLine.ParameterException(
        new picocli.CommandLine(this), "Give 'start' or 'stop'");
  }

  @Command(
      name = "start",
      mixinStandardHelpOptions = true,
      description = "Start a JobManager and TaskManagers in the background.")
  static final class Start implements Callable<Integer> {

    @Option(names = "--taskmanagers", defaultValue = "1", description = "How many TaskManagers.")
    int taskManagers;

    @Option(names = "--slots", defaultValue = "1", description = "Slots per TaskManager.")
    int slots;

    @Option(names = "--dir", description = "Where PID files and logs go.")
    Path dir;

    @Option(names = "--config", description = "A config file for every process.")
    Path config;

    @Option(names = "-D", paramLabel = "KEY=VALUE", description = "A setting for every process.")
    List<String> settings;

    @Option(
        names = "--jvm-option",
        paramLabel = "OPTION",
        description = "A JVM option for every process, e.g. --jvm-option=-Xmx1g.")
    List<String> jvmOptions = new ArrayList<>();

    @Override
    public Integer call() throws Exception {
      // Before any process starts: a config file that cannot be read (named with its line), and
      // a -D key no module knows (named with the nearest known key), as 'weir run' refuses them.
      ClusterOptions.load(config, Map.of());
      io.weir.api.config.Configuration given = new io.weir.api.config.Configuration();
      Settings.parse(settings).forEach(given::setString);
      List<String> unknown = io.weir.api.config.KnownKeys.unknownInProcess(given);
      if (!unknown.isEmpty()) {
        throw new IllegalArgumentException(
            "Unknown configuration key"
                + (unknown.size() > 1 ? "s " : " ")
                + String.join(", ", unknown)
                + " given with -D: Weir reads no such setting. Correct the key, or remove it;"
                + " 'weir keys' and docs/configuration.md list the keys.");
      }
      Path home = dir != null ? dir : defaultDir();
      Files.createDirectories(home.resolve("log"));
      if (Files.exists(home.resolve("jobmanager.pid"))) {
        throw new IllegalStateException(
            "A cluster already runs from "
                + home
                + " (jobmanager.pid exists): stop it with 'weir cluster stop --dir "
                + home
                + "'");
      }
      List<String> common = new ArrayList<>();
      if (config != null) {
        common.add("--config");
        common.add(config.toAbsolutePath().toString());
      }
      for (String s : Optional.ofNullable(settings).orElse(List.of())) {
        common.add("-D");
        common.add(s);
      }
      Path jmLog = home.resolve("log/jobmanager.log");
      List<String> jmArgs = new ArrayList<>(List.of("jobmanager"));
      if (!Settings.parse(settings).containsKey(ClusterOptions.UPLOAD_DIR.key())) {
        jmArgs.addAll(List.of("-D", ClusterOptions.UPLOAD_DIR.key() + "=" + home.resolve("jars")));
      }
      Path jmStatus = statusFile(home, "jobmanager");
      jmArgs.addAll(List.of("-D", STATUS_FILE.key() + "=" + jmStatus));
      Process jm = spawn(home, "jobmanager", jmLog, concat(jmArgs, common));
      Map<String, String> started = awaitStatus(jm, jmStatus, jmLog, Duration.ofSeconds(60));
      System.out.println(
          "JobManager (pid "
              + jm.pid()
              + "): control port "
              + started.get("rpc.address")
              + ", REST port "
              + started.get("rest.address")
              + "; log "
              + jmLog);
      var options = ClusterOptions.load(config, Settings.parse(settings));
      // The port the JobManager did bind (0 in the settings picks a free one).
      String rpc = options.get(ClusterOptions.JM_ADDRESS) + ":" + started.get("rpc.port");
      for (int i = 1; i <= taskManagers; i++) {
        Path log = home.resolve("log/taskmanager-" + i + ".log");
        Path status = statusFile(home, "taskmanager-" + i);
        List<String> args =
            concat(
                List.of(
                    "taskmanager",
                    "--jobmanager",
                    rpc,
                    "--slots",
                    "" + slots,
                    "-D",
                    STATUS_FILE.key() + "=" + status),
                common);
        Process tm = spawn(home, "taskmanager-" + i, log, args);
        Map<String, String> registered = awaitStatus(tm, status, log, Duration.ofSeconds(60));
        System.out.println(
            "TaskManager "
                + i
                + " (pid "
                + tm.pid()
                + ", "
                + registered.get("id")
                + ") registered; log "
                + log
                + ", print() output "
                + log.resolveSibling("taskmanager-" + i + ".out"));
      }
      System.out.println("Cluster running; stop it with 'weir cluster stop --dir " + home + "'");
      return 0;
    }

    private static List<String> concat(List<String> a, List<String> b) {
      List<String> out = new ArrayList<>(a);
      out.addAll(b);
      return out;
    }

    private Process spawn(Path home, String name, Path log, List<String> args) throws IOException {
      List<String> command = new ArrayList<>();
      command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
      command.addAll(jvmOptions);
      command.add("-Djava.io.tmpdir=" + System.getProperty("java.io.tmpdir"));
      command.add("-cp");
      command.add(System.getProperty("java.class.path"));
      command.add(WeirCli.class.getName());
      command.addAll(args);
      // As Flink's daemons: the log (Logback writes to standard error) in NAME.log, and standard
      // output, where print() and System.out of the job's code go, in NAME.out beside it.
      Path out = log.resolveSibling(name + ".out");
      Process p =
          new ProcessBuilder(command)
              .redirectOutput(ProcessBuilder.Redirect.appendTo(out.toFile()))
              .redirectError(ProcessBuilder.Redirect.appendTo(log.toFile()))
              .start();
      Files.writeString(home.resolve(name + ".pid"), p.pid() + "\n");
      return p;
    }

    /** Where a process of the cluster says it serves; a stale one is removed first. */
    private static Path statusFile(Path home, String name) throws IOException {
      Path status = home.resolve(name + ".status");
      Files.deleteIfExists(status);
      return status;
    }

    /**
     * Waits until {@code p} has written its status file (a JobManager once it serves, a TaskManager
     * once registered) and returns what it holds.
     */
    private static Map<String, String> awaitStatus(
        Process p, Path status, Path log, Duration timeout)
        throws IOException, InterruptedException {
      long deadline = System.nanoTime() + timeout.toNanos();
      while (System.nanoTime() < deadline) {
        Map<String, String> values = StatusFile.read(status);
        if (!values.isEmpty()) {
          return values;
        }
        if (p.waitFor(100, TimeUnit.MILLISECONDS)) {
          List<String> lines = Files.readAllLines(log);
          throw new IllegalStateException(
              "The process failed to start (exit code "
                  + p.exitValue()
                  + "); the end of "
                  + log
                  + ":\n"
                  + String.join("\n", lines.subList(Math.max(0, lines.size() - 10), lines.size())));
        }
      }
      throw new IllegalStateException(
          "The process did not start serving within " + timeout + ": see " + log);
    }
  }

  @Command(
      name = "stop",
      mixinStandardHelpOptions = true,
      description = "Stop the processes 'weir cluster start' started.")
  static final class Stop implements Callable<Integer> {

    @Option(names = "--dir", description = "The directory given to 'weir cluster start'.")
    Path dir;

    @Override
    public Integer call() throws Exception {
      Path home = dir != null ? dir : defaultDir();
      List<Path> pidFiles;
      try (Stream<Path> files = Files.exists(home) ? Files.list(home) : Stream.empty()) {
        pidFiles = files.filter(p -> p.getFileName().toString().endsWith(".pid")).sorted().toList();
      }
      if (pidFiles.isEmpty()) {
        throw new IllegalStateException("No cluster runs from " + home + ": it holds no PID files");
      }
      for (Path pidFile : pidFiles) {
        long pid = Long.parseLong(Files.readString(pidFile).strip());
        Optional<ProcessHandle> process = ProcessHandle.of(pid);
        String name = pidFile.getFileName().toString().replace(".pid", "");
        if (process.isPresent()) {
          process.get().destroy();
          try {
            process.get().onExit().get(30, TimeUnit.SECONDS);
          } catch (java.util.concurrent.TimeoutException e) {
            process.get().destroyForcibly();
          }
          System.out.println("Stopped " + name + " (pid " + pid + ")");
        } else {
          System.out.println(name + " (pid " + pid + ") was not running");
        }
        Files.delete(pidFile);
      }
      return 0;
    }
  }
}
