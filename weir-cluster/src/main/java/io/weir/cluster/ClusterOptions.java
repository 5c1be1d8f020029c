package io.weir.cluster;

import io.weir.api.config.ConfigOption;
import io.weir.api.config.ConfigOptionProvider;
import io.weir.api.config.ConfigOptions;
import io.weir.api.config.Configuration;
import io.weir.api.config.KnownKeys;
import io.weir.cluster.ha.HighAvailabilityOptions;
import io.weir.cluster.metrics.MetricOptions;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * The settings of JobManager and TaskManager processes, with Flink's keys where the concept is the
 * same, each a {@link ConfigOption} known to the one registry ({@link KnownKeys}, through {@link
 * Provider}). Read from a config file (Flink's {@code config.yaml}, flat or nested) and {@code -D
 * key=value} arguments, the latter winning. Every other key of the file is a default of the jobs a
 * JobManager runs ({@link #jobDefaults()}).
 */
public final class ClusterOptions {

  public static final ConfigOption<String> JM_ADDRESS =
      ConfigOptions.key("jobmanager.rpc.address")
          .stringType()
          .defaultValue("127.0.0.1")
          .withDescription("Address the TaskManagers and clients reach the JobManager at.");

  public static final ConfigOption<Integer> JM_PORT =
      ConfigOptions.key("jobmanager.rpc.port")
          .intType()
          .defaultValue(6123)
          .withDescription("The JobManager's control port (gRPC); 0 picks a free one.");

  public static final ConfigOption<String> JM_BIND_HOST =
      ConfigOptions.key("jobmanager.bind-host")
          .stringType()
          .defaultValue("127.0.0.1")
          .withDescription("The address the JobManager's control port binds to.");

  public static final ConfigOption<Integer> REST_PORT =
      ConfigOptions.key("rest.port")
          .intType()
          .defaultValue(8081)
          .withDescription("The REST port; 0 picks a free one.");

  public static final ConfigOption<String> REST_BIND_ADDRESS =
      ConfigOptions.key("rest.bind-address")
          .stringType()
          .defaultValue("127.0.0.1")
          .withDescription("The address the REST server binds to.");

  public static final ConfigOption<String> TM_BIND_HOST =
      ConfigOptions.key("taskmanager.bind-host")
          .stringType()
          .defaultValue("127.0.0.1")
          .withDescription("The address a TaskManager's control and data ports bind to.");

  public static final ConfigOption<String> TM_HOST =
      ConfigOptions.key("taskmanager.host")
          .stringType()
          .noDefaultValue()
          .withDescription(
              "The address the JobManager and other TaskManagers reach a TaskManager at; unset:"
                  + " its bind host.");

  public static final ConfigOption<Integer> TM_PORT =
      ConfigOptions.key("taskmanager.rpc.port")
          .intType()
          .defaultValue(0)
          .withDescription(
              "A TaskManager's control port, as the JobManager reaches it; 0 picks a free one."
                  + " With taskmanager.rpc.bind-port set, the port the JobManager reaches that"
                  + " forwards to it (NAT, a proxy).");

  public static final ConfigOption<Integer> TM_RPC_BIND_PORT =
      ConfigOptions.key("taskmanager.rpc.bind-port")
          .intType()
          .noDefaultValue()
          .withDescription(
              "The port a TaskManager's control plane binds to when the JobManager reaches it at"
                  + " another one (taskmanager.rpc.port); unset: it binds to"
                  + " taskmanager.rpc.port.");

  public static final ConfigOption<Integer> TM_DATA_PORT =
      ConfigOptions.key("taskmanager.data.port")
          .intType()
          .defaultValue(0)
          .withDescription(
              "A TaskManager's data port (Netty), as other TaskManagers reach it; 0 picks a free"
                  + " one. With taskmanager.data.bind-port set, the port they reach that forwards to"
                  + " it (NAT, a proxy).");

  public static final ConfigOption<Integer> TM_DATA_BIND_PORT =
      ConfigOptions.key("taskmanager.data.bind-port")
          .intType()
          .noDefaultValue()
          .withDescription(
              "The port a TaskManager's data plane binds to when others reach it at another one"
                  + " (taskmanager.data.port); unset: it binds to taskmanager.data.port.");

  public static final ConfigOption<String> NETTY_TRANSPORT =
      ConfigOptions.key("taskmanager.network.netty.transport")
          .stringType()
          .defaultValue("auto")
          .withDescription(
              "The data plane's sockets: epoll (Netty's native transport), nio, or auto (epoll"
                  + " where it loads, else nio).");

  public static final ConfigOption<Integer> NETTY_THREADS =
      ConfigOptions.key("taskmanager.network.netty.num-threads")
          .intType()
          .defaultValue(-1)
          .withDescription(
              "Event-loop threads of the data plane, serving both its server and its client"
                  + " connections; -1 for one per slot.");

  public static final ConfigOption<Boolean> EVENLY_SPREAD_OUT_SLOTS =
      ConfigOptions.key("cluster.evenly-spread-out-slots")
          .booleanType()
          .defaultValue(false)
          .withDescription(
              "Spread a job's slots over as many TaskManagers as possible (true) or pack them onto"
                  + " as few as possible (false, Flink's default).");

  public static final ConfigOption<Integer> SLOTS =
      ConfigOptions.key("taskmanager.numberOfTaskSlots")
          .intType()
          .defaultValue(1)
          .withDescription("Slots of a TaskManager.");

  public static final ConfigOption<Duration> HEARTBEAT_INTERVAL =
      ConfigOptions.key("heartbeat.interval")
          .durationType()
          .defaultValue(Duration.ofSeconds(10))
          .withDescription("How often heartbeats are sent, both ways (bare numbers are ms).");

  public static final ConfigOption<Duration> HEARTBEAT_TIMEOUT =
      ConfigOptions.key("heartbeat.timeout")
          .durationType()
          .defaultValue(Duration.ofSeconds(50))
          .withDescription("Silence after which a peer counts as lost (bare numbers are ms).");

  public static final ConfigOption<Duration> SLOT_REQUEST_TIMEOUT =
      ConfigOptions.key("slot.request.timeout")
          .durationType()
          .defaultValue(Duration.ofMinutes(5))
          .withDescription(
              "How long a job waits for enough free slots (bare numbers are ms); a job may set its"
                  + " own.");

  public static final ConfigOption<String> UPLOAD_DIR =
      ConfigOptions.key("web.upload.dir")
          .stringType()
          .noDefaultValue()
          .withDescription(
              "Where the JobManager keeps uploaded jars and a TaskManager its copies; unset: a"
                  + " directory of the process under the temporary directory.");

  public static final ConfigOption<String> SECRET =
      ConfigOptions.key("security.cluster.secret")
          .stringType()
          .noDefaultValue()
          .withDescription(
              "A shared secret: when set, registration, submission, changing REST calls, control"
                  + " messages and data connections must present it.");

  public static final ConfigOption<String> REST_SAVEPOINT_ROOT =
      ConfigOptions.key("security.rest.savepoint-root")
          .stringType()
          .noDefaultValue()
          .withDescription(
              "A directory (absolute path or URI) under which every path a REST client names must"
                  + " lie: the target-directory of a savepoint or stop, the savepoint a jar run"
                  + " restores from (savepointPath, execution.state-recovery.path), and the"
                  + " checkpoint and savepoint directories among a jar run's settings. A path"
                  + " outside it is refused with 403 naming it. Unset: any absolute path, as in"
                  + " Flink.");

  public static final ConfigOption<String> STATUS_FILE =
      ConfigOptions.key("cluster.status-file")
          .stringType()
          .noDefaultValue()
          .withDescription(
              "A file the process writes once it serves: its ports and pid (and a TaskManager's id"
                  + " once registered), as key=value lines, for scripts that start processes with"
                  + " port 0 (Weir's own).");

  /** Every option of the cluster's processes, the high-availability and metrics ones included. */
  public static final List<ConfigOption<?>> OPTIONS =
      List.copyOf(
          ConfigOptionProvider.declaredIn(
              ClusterOptions.class, HighAvailabilityOptions.class, MetricOptions.class));

  /** Every key of {@link #OPTIONS}. */
  public static final Set<String> KEYS =
      OPTIONS.stream().map(ConfigOption::key).collect(Collectors.toUnmodifiableSet());

  /** Makes the cluster's options known to the registry. */
  public static final class Provider implements ConfigOptionProvider {
    @Override
    public String module() {
      return "weir-cluster";
    }

    @Override
    public Collection<ConfigOption<?>> options() {
      return OPTIONS;
    }
  }

  private final Configuration values;

  private ClusterOptions(Configuration values) {
    this.values = values;
  }

  /**
   * Settings from {@code file} (may be null) overridden by {@code overrides}.
   *
   * @throws IllegalArgumentException naming the file, and the line that cannot be read
   */
  public static ClusterOptions load(Path file, Map<String, String> overrides) {
    Configuration values = new Configuration();
    if (file != null) {
      if (!Files.isRegularFile(file)) {
        throw new IllegalArgumentException(
            "Cannot read the config file " + file + ": no such file");
      }
      try {
        values.addAll(Configuration.fromYaml(file));
      } catch (IOException e) {
        throw new IllegalArgumentException(
            "Cannot read the config file " + file + ": " + e.getMessage(), e);
      }
    }
    overrides.forEach(values::setString);
    return new ClusterOptions(values);
  }

  /** Settings from {@code values} alone. */
  public static ClusterOptions of(Map<String, String> values) {
    Configuration conf = new Configuration();
    values.forEach(conf::setString);
    return new ClusterOptions(conf);
  }

  /** Parses {@code key=value}. */
  public static Map.Entry<String, String> parseSetting(String setting) {
    int eq = setting.indexOf('=');
    if (eq <= 0) {
      throw new IllegalArgumentException(
          "The setting '" + setting + "' is not key=value, e.g. -D heartbeat.timeout=50000");
    }
    return Map.entry(setting.substring(0, eq).strip(), setting.substring(eq + 1).strip());
  }

  /**
   * The value of {@code option}, or its default (null for none).
   *
   * @throws IllegalArgumentException naming the key, for a value that cannot be read
   */
  public <T> T get(ConfigOption<T> option) {
    return values.get(option);
  }

  /** Whether {@code option} is set, not defaulted. */
  public boolean contains(ConfigOption<?> option) {
    return values.contains(option);
  }

  /** The secret, or null when none is configured. */
  public String secret() {
    String s = get(SECRET);
    return s == null || s.isBlank() ? null : s;
  }

  /** A copy with {@code option} set to {@code value}. */
  public <T> ClusterOptions with(ConfigOption<T> option, T value) {
    Configuration copy = new Configuration(values);
    copy.set(option, value);
    return new ClusterOptions(copy);
  }

  /** Every setting as a configuration (a copy). */
  public Configuration configuration() {
    return new Configuration(values);
  }

  /**
   * The keys of Weir's namespaces set here that no option knows, each with the nearest known key
   * ({@code 'rest.prot' (did you mean 'rest.port'?)}): a process logs them, and a JobManager leaves
   * them out of its jobs' defaults.
   */
  public List<String> unknownKeys() {
    return KnownKeys.unknownInProcess(values);
  }

  /**
   * What a process logs about the settings here: deprecated keys, and Flink keys that ask for what
   * Weir does not do ({@link KnownKeys#warnings}).
   */
  public List<String> warnings() {
    return KnownKeys.warnings(values);
  }

  /**
   * The settings that configure jobs rather than this process: every key set here that is no
   * cluster key and no unknown key of Weir's namespaces ({@code execution.checkpointing.interval},
   * {@code state.backend.type}, {@code s3.endpoint}, ...). As in Flink, a JobManager's
   * configuration holds the defaults of the jobs it runs, and a job's own settings win over them.
   * The secret is a cluster key: never a job's.
   */
  public Map<String, String> jobDefaults() {
    Set<String> known = KnownKeys.all();
    Map<String, String> defaults = new TreeMap<>();
    values
        .toMap()
        .forEach(
            (k, v) -> {
              if (!KEYS.contains(k)
                  && (known.contains(k)
                      || !KnownKeys.inWeirNamespace(k)
                          && !KnownKeys.inProcessNamespace(k)
                          && !k.startsWith("weir."))) {
                defaults.put(k, v);
              }
            });
    return defaults;
  }
}
