package io.weir.cluster;

import io.weir.api.config.KnownKeys;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The settings of JobManager and TaskManager processes, with Flink's keys where the concept is the
 * same. Read from a config file of {@code key: value} lines (Flink's flat {@code config.yaml}) and
 * {@code -D key=value} arguments, the latter winning.
 */
public final class ClusterOptions {

  /** Address the TaskManagers and clients reach the JobManager at. */
  public static final String JM_ADDRESS = "jobmanager.rpc.address";

  /** The JobManager's control port (gRPC). */
  public static final String JM_PORT = "jobmanager.rpc.port";

  /** The address the JobManager's control port binds to. */
  public static final String JM_BIND_HOST = "jobmanager.bind-host";

  /** The REST port. */
  public static final String REST_PORT = "rest.port";

  /** The address the REST server binds to. */
  public static final String REST_BIND_ADDRESS = "rest.bind-address";

  /** The address a TaskManager's control port binds to and is reached at. */
  public static final String TM_BIND_HOST = "taskmanager.bind-host";

  /** A TaskManager's control port; 0 picks a free one. */
  public static final String TM_PORT = "taskmanager.rpc.port";

  /** A TaskManager's data port (Netty); 0 picks a free one. */
  public static final String TM_DATA_PORT = "taskmanager.data.port";

  /** The data plane's socket transport: auto (epoll where available), nio or epoll. */
  public static final String NETTY_TRANSPORT = "taskmanager.network.netty.transport";

  /**
   * Event-loop threads of the data plane, serving both its server and its client connections; -1
   * (the default) for one per slot.
   */
  public static final String NETTY_THREADS = "taskmanager.network.netty.num-threads";

  /**
   * Whether a job's slots are spread over as many TaskManagers as possible (true) or packed onto as
   * few as possible (false, Flink's default).
   */
  public static final String EVENLY_SPREAD_OUT_SLOTS = "cluster.evenly-spread-out-slots";

  /** Slots of a TaskManager. */
  public static final String SLOTS = "taskmanager.numberOfTaskSlots";

  /** How often heartbeats are sent, in milliseconds. */
  public static final String HEARTBEAT_INTERVAL = "heartbeat.interval";

  /** After how long without a heartbeat a peer counts as lost, in milliseconds. */
  public static final String HEARTBEAT_TIMEOUT = "heartbeat.timeout";

  /** How long a job waits for enough free slots, in milliseconds. */
  public static final String SLOT_REQUEST_TIMEOUT = "slot.request.timeout";

  /** Where the JobManager keeps uploaded jars and a TaskManager its copies of them. */
  public static final String UPLOAD_DIR = "web.upload.dir";

  /**
   * A shared secret: when set, registration, submission, changing REST calls and every control
   * message must present it.
   */
  public static final String SECRET = "security.cluster.secret";

  /** Every key of this class, to name the nearest when a key is mistyped. */
  public static final List<String> KEYS =
      List.of(
          JM_ADDRESS,
          JM_PORT,
          JM_BIND_HOST,
          REST_PORT,
          REST_BIND_ADDRESS,
          TM_BIND_HOST,
          TM_PORT,
          TM_DATA_PORT,
          NETTY_TRANSPORT,
          NETTY_THREADS,
          EVENLY_SPREAD_OUT_SLOTS,
          SLOTS,
          HEARTBEAT_INTERVAL,
          HEARTBEAT_TIMEOUT,
          SLOT_REQUEST_TIMEOUT,
          UPLOAD_DIR,
          SECRET);

  private static final Map<String, String> DEFAULTS =
      Map.ofEntries(
          Map.entry(JM_ADDRESS, "127.0.0.1"),
          Map.entry(JM_PORT, "6123"),
          Map.entry(JM_BIND_HOST, "127.0.0.1"),
          Map.entry(REST_PORT, "8081"),
          Map.entry(REST_BIND_ADDRESS, "127.0.0.1"),
          Map.entry(TM_BIND_HOST, "127.0.0.1"),
          Map.entry(TM_PORT, "0"),
          Map.entry(TM_DATA_PORT, "0"),
          Map.entry(NETTY_TRANSPORT, "auto"),
          Map.entry(NETTY_THREADS, "-1"),
          Map.entry(EVENLY_SPREAD_OUT_SLOTS, "false"),
          Map.entry(SLOTS, "1"),
          Map.entry(HEARTBEAT_INTERVAL, "10000"),
          Map.entry(HEARTBEAT_TIMEOUT, "50000"),
          Map.entry(SLOT_REQUEST_TIMEOUT, "300000"));

  private final Map<String, String> values;

  private ClusterOptions(Map<String, String> values) {
    this.values = values;
  }

  /**
   * Settings from {@code file} (may be null) overridden by {@code overrides}.
   *
   * @throws IllegalArgumentException naming the file or the line that cannot be read
   */
  public static ClusterOptions load(Path file, Map<String, String> overrides) {
    Map<String, String> values = new TreeMap<>();
    if (file != null) {
      List<String> lines;
      try {
        lines = Files.readAllLines(file);
      } catch (IOException e) {
        throw new IllegalArgumentException(
            "Cannot read the config file " + file + ": " + e.getMessage(), e);
      }
      for (int i = 0; i < lines.size(); i++) {
        String line = lines.get(i).strip();
        if (line.isEmpty() || line.startsWith("#")) {
          continue;
        }
        int colon = line.indexOf(':');
        if (colon <= 0) {
          throw new IllegalArgumentException(
              "Line " + (i + 1) + " of the config file " + file + " is not 'key: value': " + line);
        }
        values.put(line.substring(0, colon).strip(), unquote(line.substring(colon + 1).strip()));
      }
    }
    values.putAll(overrides);
    return new ClusterOptions(values);
  }

  /** Settings from {@code values} alone. */
  public static ClusterOptions of(Map<String, String> values) {
    return new ClusterOptions(new TreeMap<>(values));
  }

  private static String unquote(String v) {
    if (v.length() >= 2
        && ((v.startsWith("\"") && v.endsWith("\"")) || (v.startsWith("'") && v.endsWith("'")))) {
      return v.substring(1, v.length() - 1);
    }
    return v;
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

  /** The value of {@code key}, its default, or null. */
  public String get(String key) {
    String v = values.get(key);
    return v != null ? v : DEFAULTS.get(key);
  }

  /** The value of {@code key} as an int. */
  public int getInt(String key) {
    String v = get(key);
    try {
      return Integer.parseInt(v.strip());
    } catch (NumberFormatException | NullPointerException e) {
      throw new IllegalArgumentException(
          "The setting " + key + " = '" + v + "' is not a whole number", e);
    }
  }

  /** The value of {@code key} as a duration: milliseconds, or with a unit (500 ms, 10 s, 1 min). */
  public Duration getDuration(String key) {
    String v = get(key);
    try {
      String s = v.strip().toLowerCase(java.util.Locale.ROOT).replace(" ", "");
      if (s.endsWith("ms")) {
        return Duration.ofMillis(Long.parseLong(s.substring(0, s.length() - 2)));
      } else if (s.endsWith("min")) {
        return Duration.ofMinutes(Long.parseLong(s.substring(0, s.length() - 3)));
      } else if (s.endsWith("s")) {
        return Duration.ofSeconds(Long.parseLong(s.substring(0, s.length() - 1)));
      }
      return Duration.ofMillis(Long.parseLong(s));
    } catch (NumberFormatException | NullPointerException e) {
      throw new IllegalArgumentException(
          "The setting "
              + key
              + " = '"
              + v
              + "' is not a duration: give milliseconds, or e.g. '500 ms', '10 s', '1 min'",
          e);
    }
  }

  /** The secret, or null when none is configured. */
  public String secret() {
    String s = get(SECRET);
    return s == null || s.isBlank() ? null : s;
  }

  /** A copy with {@code key} set to {@code value}. */
  public ClusterOptions with(String key, String value) {
    Map<String, String> copy = new TreeMap<>(values);
    copy.put(key, value);
    return new ClusterOptions(copy);
  }

  /**
   * Keys that look like cluster keys but are neither one nor a job setting Weir knows (such as
   * {@code taskmanager.network.memory.buffers-per-channel}, which jobs read).
   */
  public List<String> unknownKeys() {
    Set<String> jobKeys = KnownKeys.all();
    return values.keySet().stream()
        .filter(
            k ->
                (k.startsWith("jobmanager.")
                        || k.startsWith("taskmanager.")
                        || k.startsWith("heartbeat.")
                        || k.startsWith("rest.")
                        || k.startsWith("slot."))
                    && !KEYS.contains(k)
                    && !jobKeys.contains(k))
        .toList();
  }

  /**
   * The settings that configure jobs rather than this process: every key set here that is no
   * cluster key ({@code execution.checkpointing.interval}, {@code state.backend.type}, {@code
   * s3.endpoint}, ...). As in Flink, a JobManager's configuration holds the defaults of the jobs it
   * runs, and a job's own settings win over them. The secret is a cluster key: never a job's.
   */
  public Map<String, String> jobDefaults() {
    Map<String, String> defaults = new TreeMap<>(values);
    defaults.keySet().removeAll(KEYS);
    return defaults;
  }
}
