package io.weir.cluster;

import io.weir.cluster.ha.HighAvailabilityOptions;
import io.weir.cluster.jobmanager.JobManager;
import io.weir.cluster.rpc.HostPort;
import io.weir.cluster.rpc.WeirMessages;
import io.weir.cluster.taskmanager.TaskManager;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Entry points of the processes, for the {@code weir} CLI and for tests that start processes
 * directly: {@code jobmanager [--config FILE] [-D k=v]...} and {@code taskmanager --jobmanager
 * HOST:PORT [--slots N] [--config FILE] [-D k=v]...}.
 */
public final class ClusterMain {

  private ClusterMain() {}

  /**
   * A process logs Weir's INFO lines (what registered, what was deployed, what was lost) and gRPC's
   * transport events (a connection closed for garbage bytes), which gRPC logs through
   * java.util.logging.
   */
  static void configureLogging() {
    org.slf4j.bridge.SLF4JBridgeHandler.removeHandlersForRootLogger();
    org.slf4j.bridge.SLF4JBridgeHandler.install();
    if (org.slf4j.LoggerFactory.getILoggerFactory()
        instanceof ch.qos.logback.classic.LoggerContext logback) {
      logback.getLogger("io.weir").setLevel(ch.qos.logback.classic.Level.INFO);
      logback
          .getLogger("io.grpc.netty.NettyServerTransport")
          .setLevel(ch.qos.logback.classic.Level.INFO);
    }
  }

  /** Runs a JobManager until the process is stopped. */
  public static void runJobManager(Path config, Map<String, String> settings) throws Exception {
    configureLogging();
    JobManager jm = new JobManager(ClusterOptions.load(config, settings));
    Runtime.getRuntime().addShutdownHook(new Thread(() -> closeQuietly(jm)));
    jm.awaitTermination();
  }

  /** Runs a TaskManager until the process is stopped. */
  public static void runTaskManager(
      String jobManager, Integer slots, Path config, Map<String, String> settings)
      throws Exception {
    configureLogging();
    ClusterOptions options = ClusterOptions.load(config, settings);
    if (slots != null) {
      options = options.with(ClusterOptions.SLOTS, slots);
    }
    // Under high availability without --jobmanager: the leader ZooKeeper publishes.
    boolean followLeader =
        jobManager == null && HighAvailabilityOptions.isZooKeeper(options.configuration());
    String address =
        jobManager != null
            ? jobManager
            : options.get(ClusterOptions.JM_ADDRESS) + ":" + options.get(ClusterOptions.JM_PORT);
    HostPort hp = HostPort.parse(address, "--jobmanager");
    TaskManager tm =
        new TaskManager(
            options,
            followLeader ? null : hp.host(),
            hp.port(),
            reason -> {
              System.err.println("weir taskmanager: " + reason);
              Runtime.getRuntime().halt(1);
            });
    Runtime.getRuntime().addShutdownHook(new Thread(() -> closeQuietly(tm)));
    tm.awaitTermination();
  }

  private static void closeQuietly(AutoCloseable c) {
    try {
      c.close();
    } catch (Exception e) {
      // shutting down
    }
  }

  /** {@code jobmanager ...} or {@code taskmanager ...}; for tests and scripts. */
  public static void main(String[] args) throws Exception {
    if (args.length == 0) {
      System.err.println("usage: ClusterMain jobmanager|taskmanager [options]");
      System.exit(2);
    }
    Map<String, String> settings = new LinkedHashMap<>();
    Path config = null;
    String jobManager = null;
    Integer slots = null;
    List<String> rest = List.of(args).subList(1, args.length);
    for (int i = 0; i < rest.size(); i++) {
      String a = rest.get(i);
      switch (a) {
        case "--config" -> config = Path.of(rest.get(++i));
        case "--jobmanager" -> jobManager = rest.get(++i);
        case "--slots" -> slots = Integer.parseInt(rest.get(++i));
        case "-D" -> {
          Map.Entry<String, String> e = ClusterOptions.parseSetting(rest.get(++i));
          settings.put(e.getKey(), e.getValue());
        }
        default -> {
          if (a.startsWith("-D")) {
            Map.Entry<String, String> e = ClusterOptions.parseSetting(a.substring(2));
            settings.put(e.getKey(), e.getValue());
          } else {
            throw new IllegalArgumentException("Unknown argument " + a);
          }
        }
      }
    }
    try {
      if (args[0].equals("jobmanager")) {
        runJobManager(config, settings);
      } else {
        runTaskManager(jobManager, slots, config, settings);
      }
    } catch (IllegalArgumentException e) {
      System.err.println("weir " + args[0] + ": " + WeirMessages.describe(e));
      System.exit(1);
    }
  }
}
