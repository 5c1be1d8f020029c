package io.weir.api.config;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Flink settings of Weir's namespaces that a Flink configuration file commonly holds and that Weir
 * does not act on: they are accepted, so that such a file works unchanged, and where the value asks
 * for something Weir does not do, a warning says so and what Weir does instead (never silence: a
 * user who asked for file merging must learn that Weir writes one file per state chunk).
 */
public final class FlinkKeys {

  /**
   * One Flink key Weir accepts without acting on it.
   *
   * @param key the key
   * @param what what Weir does instead, said in the warning and the docs
   * @param warns false when every value is meaningless here: the key is only listed, never warned
   *     about
   * @param quietValues values (lower case) that ask for what Weir does anyway: no warning
   */
  record Key(String key, String what, boolean warns, Set<String> quietValues) {}

  private static final Map<String, Key> KEYS = new TreeMap<>();

  private static void quiet(String key, String what) {
    KEYS.put(key, new Key(key, what, false, Set.of()));
  }

  private static void warnUnless(String key, String what, String... quietValues) {
    KEYS.put(key, new Key(key, what, true, Set.of(quietValues)));
  }

  static {
    // The processes: Weir's own keys or its start scripts cover these, or they mean nothing here.
    String memory =
        "Weir's processes are sized by their JVM heap (-Xmx, or the container's memory), RocksDB"
            + " by state.backend.rocksdb.memory.fixed-per-slot";
    for (String key :
        List.of(
            "jobmanager.memory.heap.size",
            "jobmanager.memory.flink.size",
            "jobmanager.memory.off-heap.size",
            "jobmanager.memory.jvm-metaspace.size",
            "taskmanager.memory.flink.size",
            "taskmanager.memory.task.heap.size",
            "taskmanager.memory.task.off-heap.size",
            "taskmanager.memory.framework.heap.size",
            "taskmanager.memory.framework.off-heap.size",
            "taskmanager.memory.managed.size",
            "taskmanager.memory.managed.fraction",
            "taskmanager.memory.network.fraction",
            "taskmanager.memory.network.min",
            "taskmanager.memory.network.max",
            "taskmanager.memory.jvm-metaspace.size",
            "taskmanager.memory.jvm-overhead.fraction")) {
      quiet(key, memory);
    }
    quiet(
        "taskmanager.network.memory.floating-buffers-per-gate",
        "a channel's buffers are taskmanager.network.memory.buffers-per-channel");
    quiet("taskmanager.resource-id", "a TaskManager is named by its address and port");
    quiet("execution.target", "weir run runs on the cluster its --jobmanager names, or locally");
    quiet("execution.attached", "weir run waits for the job unless --detached is given");
    quiet("pipeline.jars", "weir run ships the jar it is given");
    quiet("pipeline.classpaths", "weir run ships the jar it is given");
    quiet("pipeline.closure-cleaner-level", "a function is serialized as it is written");
    quiet(
        "execution.checkpointing.unaligned.forced",
        "unaligned checkpoints, when enabled, are taken by every job");
    quiet(
        "execution.checkpointing.cleaner.parallel-mode",
        "subsumed checkpoints are deleted on the JobManager's I/O thread");
    quiet(
        "execution.checkpointing.create-subdir",
        "checkpoints go to <execution.checkpointing.dir>/<job id>/chk-<n>");
    quiet(
        "execution.checkpointing.write-buffer-size",
        "state files are written through the file system's own buffers");

    // Asked-for behaviour Weir does not have: a warning unless the value asks for Weir's.
    warnUnless(
        "execution.checkpointing.snapshot-compression",
        "Weir does not compress snapshots (RocksDB compresses its files:"
            + " state.backend.rocksdb.compression)",
        "false");
    warnUnless(
        "execution.checkpointing.file-merging.enabled",
        "Weir writes one file per state chunk and inlines small ones in the metadata"
            + " (execution.checkpointing.data-inline-threshold)",
        "false");
    warnUnless(
        "execution.checkpointing.interval-during-backlog",
        "checkpoints follow execution.checkpointing.interval while sources catch up too");
    warnUnless(
        "state.backend.rocksdb.memory.managed",
        "the RocksDB instances of a slot share state.backend.rocksdb.memory.fixed-per-slot always",
        "true");
    warnUnless(
        "state.backend.rocksdb.timer-service.factory",
        "timers of the RocksDB backend are kept in RocksDB, the earliest cached on the heap"
            + " (state.backend.rocksdb.timer-service.cache-size)",
        "rocksdb");
    warnUnless(
        "state.backend.rocksdb.predefined-options",
        "RocksDB is tuned by Weir's state.backend.rocksdb.* keys",
        "default");
    warnUnless(
        "state.backend.rocksdb.compaction.style",
        "RocksDB compacts by levels (state.backend.rocksdb.compaction.level.*)",
        "level");
    warnUnless(
        "state.backend.rocksdb.block.cache-size",
        "the block cache is part of the memory a slot's RocksDB instances share,"
            + " state.backend.rocksdb.memory.fixed-per-slot");
    warnUnless(
        "pipeline.generic-types",
        "a type Weir has no serializer of its own for is serialized with Kryo, never refused",
        "true");
    warnUnless(
        "pipeline.force-kryo",
        "types keep the serializers Weir picks for them (Kryo only where it has none)",
        "false");
    warnUnless(
        "jobmanager.scheduler",
        "Weir schedules every task of a job at once (Flink's default scheduler)",
        "default");
    warnUnless(
        "jobmanager.archive.fs.dir",
        "Weir has no history server: a finished job's checkpoints keep its checkpoint history");
    warnUnless("web.submit.enable", "the REST API accepts jars", "true");
    warnUnless("web.cancel.enable", "the REST API accepts cancellations", "true");
    warnUnless(
        "metrics.reporter.jmx.factory.class",
        "Weir reports metrics to Prometheus only (metrics.reporter.prom.port)");
  }

  private FlinkKeys() {}

  /** The keys, each with what Weir does instead, by key. */
  public static Map<String, String> all() {
    Map<String, String> all = new TreeMap<>();
    KEYS.forEach((key, k) -> all.put(key, k.what()));
    return all;
  }

  /** True if {@code key} is one of them. */
  static boolean contains(String key) {
    return KEYS.containsKey(key);
  }

  /**
   * One warning for each key of {@code configuration} that asks for something Weir does not do,
   * naming the key, its value and what Weir does instead.
   */
  public static List<String> warnings(Configuration configuration) {
    List<String> warnings = new ArrayList<>();
    configuration.toMap().entrySet().stream()
        .filter(e -> KEYS.containsKey(e.getKey()))
        .sorted(Map.Entry.comparingByKey())
        .forEach(
            e -> {
              Key k = KEYS.get(e.getKey());
              if (!k.warns()
                  || k.quietValues().contains(e.getValue().strip().toLowerCase(Locale.ROOT))) {
                return;
              }
              warnings.add(
                  "Flink's '"
                      + k.key()
                      + ": "
                      + e.getValue()
                      + "' is not acted on: "
                      + k.what()
                      + ". Remove it to silence this warning.");
            });
    return warnings;
  }

  /** The markdown table of the keys for docs/configuration.md. */
  static String table() {
    StringBuilder out =
        new StringBuilder("| Flink key | what Weir does instead |\n| --- | --- |\n");
    KEYS.forEach(
        (key, k) -> {
          String note =
              !k.warns()
                  ? ""
                  : k.quietValues().isEmpty()
                      ? " (any value is warned about)"
                      : " (warned about unless "
                          + String.join(
                              " or ",
                              k.quietValues().stream().sorted().map(v -> "`" + v + "`").toList())
                          + ")";
          out.append("| `")
              .append(key)
              .append("` | ")
              .append(k.what().replace("|", "\\|"))
              .append(note)
              .append(" |\n");
        });
    return out.toString();
  }
}
