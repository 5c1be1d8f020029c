package io.weir.api.config;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.TreeSet;

/**
 * The configuration keys Weir knows, and the check that a configuration uses no other key in Weir's
 * own namespaces ({@code execution.}, {@code state.}, {@code restart-strategy.}, {@code pipeline.},
 * {@code parallelism.}, {@code taskmanager.}, {@code jobmanager.}, {@code heartbeat.}, {@code
 * high-availability.}). A misspelled key would otherwise be ignored without a word and its default
 * apply; keys of other namespaces are left to connectors. Modules add their keys through {@link
 * ConfigOptionProvider}.
 */
public final class KnownKeys {

  /** The namespaces whose keys must be known. */
  public static final List<String> NAMESPACES =
      List.of(
          "execution.",
          "state.",
          "restart-strategy.",
          "pipeline.",
          "parallelism.",
          "taskmanager.",
          "jobmanager.",
          "heartbeat.",
          "high-availability.");

  /**
   * The namespaces of the cluster processes' own keys beyond {@link #NAMESPACES}: checked where a
   * process reads its configuration, not in a job's (a job's settings may carry a Flink file's
   * {@code rest.*} keys, which only processes read).
   */
  public static final List<String> PROCESS_NAMESPACES =
      List.of("rest.", "slot.", "cluster.", "security.", "web.", "metrics.");

  /**
   * Flink settings of these namespaces that a Flink configuration file commonly holds and Weir does
   * not read: accepted, so that such a file works unchanged.
   */
  private static final Set<String> FLINK_KEYS_NOT_USED =
      Set.of(
          "jobmanager.rpc.address",
          "jobmanager.rpc.port",
          "jobmanager.bind-host",
          "jobmanager.memory.process.size",
          "jobmanager.execution.failover-strategy",
          "taskmanager.bind-host",
          "taskmanager.host",
          "taskmanager.memory.process.size",
          "taskmanager.numberOfTaskSlots",
          "parallelism.default.max");

  private KnownKeys() {}

  /** Every option of Weir's modules on the class path. */
  public static List<ConfigOption<?>> options() {
    List<ConfigOption<?>> options = new ArrayList<>();
    byModule().values().forEach(options::addAll);
    return options;
  }

  /**
   * The options of each module on the class path, by module name: {@code weir-api} (the job's core
   * keys) first, then the modules' providers by name.
   */
  public static Map<String, List<ConfigOption<?>>> byModule() {
    Map<String, List<ConfigOption<?>>> modules = new java.util.TreeMap<>();
    for (ConfigOptionProvider provider : ServiceLoader.load(ConfigOptionProvider.class)) {
      modules.computeIfAbsent(provider.module(), m -> new ArrayList<>()).addAll(provider.options());
    }
    Map<String, List<ConfigOption<?>>> all = new java.util.LinkedHashMap<>();
    all.put(
        CORE_MODULE,
        List.copyOf(
            declaredIn(
                CoreOptions.class, CheckpointingOptions.class, RestartStrategyOptions.class)));
    all.putAll(modules);
    return all;
  }

  /** The module of the core options. */
  public static final String CORE_MODULE = "weir-api";

  /** Every key Weir's modules on the class path know, deprecated ones included. */
  public static Set<String> all() {
    Set<String> keys = new TreeSet<>(FLINK_KEYS_NOT_USED);
    keys.addAll(FlinkKeys.all().keySet());
    for (ConfigOption<?> option : options()) {
      keys.add(option.key());
      keys.addAll(option.deprecatedKeys());
    }
    return keys;
  }

  /**
   * The warnings a job's or a process's {@code configuration} deserves: each deprecated key it sets
   * ({@link #deprecationWarnings}) and each Flink key that asks for what Weir does not do ({@link
   * FlinkKeys#warnings}).
   */
  public static List<String> warnings(Configuration configuration) {
    List<String> warnings = new ArrayList<>(deprecationWarnings(configuration));
    warnings.addAll(FlinkKeys.warnings(configuration));
    return warnings;
  }

  /**
   * One warning for each deprecated key that {@code configuration} sets, naming the key to use
   * instead; the value is read all the same (or ignored, when the current key is set too, as Flink
   * does). Empty when no deprecated key is set.
   */
  public static List<String> deprecationWarnings(Configuration configuration) {
    Map<String, String> values = configuration.toMap();
    List<String> warnings = new ArrayList<>();
    for (ConfigOption<?> option : options()) {
      String readInstead = values.containsKey(option.key()) ? option.key() : null;
      for (String old : option.deprecatedKeys()) {
        if (!values.containsKey(old)) {
          continue;
        }
        String warning =
            "Configuration key '" + old + "' is deprecated: use '" + option.key() + "' instead";
        if (readInstead != null) {
          warning += " ('" + old + "' is ignored, since '" + readInstead + "' is set)";
        } else {
          readInstead = old;
        }
        warnings.add(warning);
      }
    }
    return warnings;
  }

  /**
   * Fails if {@code configuration} has a key in Weir's namespaces that no module knows, naming each
   * such key with the nearest known one.
   *
   * @throws IllegalArgumentException listing the unknown keys and what they may have meant
   */
  public static void check(Configuration configuration) {
    List<String> problems = unknown(configuration);
    if (!problems.isEmpty()) {
      throw new IllegalArgumentException(
          "Unknown configuration key"
              + (problems.size() > 1 ? "s " : " ")
              + String.join(", ", problems)
              + ": Weir reads no such setting, so its default would apply. Correct the key, or"
              + " remove it; 'weir keys' and docs/configuration.md list the keys.");
    }
  }

  /**
   * The keys of {@code configuration} in Weir's namespaces that no module knows, each told as
   * {@code 'key'} with the nearest known key, if one is close: {@code 'key' (did you mean
   * 'other'?)}.
   */
  public static List<String> unknown(Configuration configuration) {
    return unknown(configuration, false);
  }

  /**
   * As {@link #unknown(Configuration)}, for a process's configuration: also the keys of {@link
   * #PROCESS_NAMESPACES}.
   */
  public static List<String> unknownInProcess(Configuration configuration) {
    return unknown(configuration, true);
  }

  private static List<String> unknown(Configuration configuration, boolean process) {
    Set<String> known = null;
    List<String> problems = new ArrayList<>();
    for (String key : configuration.toMap().keySet()) {
      if (!inWeirNamespace(key) && !(process && inProcessNamespace(key))) {
        continue;
      }
      if (known == null) {
        known = all();
      }
      if (!known.contains(key)) {
        String nearest = nearest(key, known);
        problems.add(
            "'" + key + "'" + (nearest == null ? "" : " (did you mean '" + nearest + "'?)"));
      }
    }
    return problems;
  }

  /**
   * The keys of {@code names} that are settings of Weir or of its processes, by namespace or as a
   * known key: which system properties {@link Configuration#fromSystemProperties()} takes. The
   * registry is read once, and only when a name is in no namespace.
   */
  static List<String> configurationKeys(Collection<String> names) {
    Set<String> known = null;
    List<String> keys = new ArrayList<>();
    for (String name : names) {
      boolean key = name.startsWith("weir.") || inWeirNamespace(name) || inProcessNamespace(name);
      if (!key) {
        if (known == null) {
          known = all();
        }
        key = known.contains(name);
      }
      if (key) {
        keys.add(name);
      }
    }
    return keys;
  }

  /** Whether {@code key} is in one of {@link #PROCESS_NAMESPACES}. */
  public static boolean inProcessNamespace(String key) {
    return PROCESS_NAMESPACES.stream().anyMatch(key::startsWith);
  }

  /** Whether {@code key} is in one of Weir's {@link #NAMESPACES}, where keys must be known. */
  public static boolean inWeirNamespace(String key) {
    for (String namespace : NAMESPACES) {
      if (key.startsWith(namespace)) {
        return true;
      }
    }
    return false;
  }

  /** The known key closest to {@code key} in edit distance, if it is close enough to be a typo. */
  static String nearest(String key, Collection<String> known) {
    String best = null;
    int bestDistance = Integer.MAX_VALUE;
    for (String candidate : known) {
      int d = distance(key, candidate);
      if (d < bestDistance) {
        bestDistance = d;
        best = candidate;
      }
    }
    return bestDistance <= Math.max(2, key.length() / 4) ? best : null;
  }

  /** Levenshtein distance. */
  private static int distance(String a, String b) {
    int[] previous = new int[b.length() + 1];
    int[] current = new int[b.length() + 1];
    for (int j = 0; j <= b.length(); j++) {
      previous[j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      current[0] = i;
      for (int j = 1; j <= b.length(); j++) {
        int substitution = previous[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
        current[j] = Math.min(substitution, Math.min(previous[j], current[j - 1]) + 1);
      }
      int[] swap = previous;
      previous = current;
      current = swap;
    }
    return previous[b.length()];
  }

  static Collection<ConfigOption<?>> declaredIn(Class<?>... holders) {
    List<ConfigOption<?>> options = new ArrayList<>();
    for (Class<?> holder : holders) {
      for (Field field : holder.getFields()) {
        if (Modifier.isStatic(field.getModifiers())
            && ConfigOption.class.isAssignableFrom(field.getType())) {
          try {
            options.add((ConfigOption<?>) field.get(null));
          } catch (IllegalAccessException e) {
            throw new IllegalStateException("Cannot read option " + field, e);
          }
        }
      }
    }
    return options;
  }
}
