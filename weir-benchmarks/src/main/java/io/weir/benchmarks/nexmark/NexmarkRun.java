package io.weir.benchmarks.nexmark;

import io.weir.benchmarks.StateBackendSetting;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One Nexmark configuration of the side-by-side runner, {@code <query>[-rocksdb][-cp10s]}: {@code
 * q5} is q5 on the heap backend with checkpointing off, {@code q5-rocksdb-cp10s} q5 on RocksDB
 * (incremental) with a checkpoint every 10 s.
 */
public record NexmarkRun(String query, StateBackendSetting backend, boolean checkpoints) {

  /** The configuration suffixes, in the order the runner lists them. */
  public static final List<String> VARIANTS = List.of("", "-cp10s", "-rocksdb", "-rocksdb-cp10s");

  /** Every configuration: each query in each variant. */
  public static final List<String> CONFIGS = configs();

  /** Events per run unless the runner is told otherwise. */
  public static final long DEFAULT_EVENTS = 1_000_000L;

  private static List<String> configs() {
    List<String> configs = new ArrayList<>();
    for (String variant : VARIANTS) {
      for (String query : NexmarkResults.QUERIES) {
        configs.add(query + variant);
      }
    }
    return List.copyOf(configs);
  }

  /** Parses a configuration id; the error lists the forms there are. */
  public static NexmarkRun parse(String config) {
    for (String query : NexmarkResults.QUERIES) {
      if (config.equals(query)) {
        return new NexmarkRun(query, StateBackendSetting.HEAP, false);
      } else if (config.equals(query + "-cp10s")) {
        return new NexmarkRun(query, StateBackendSetting.HEAP, true);
      } else if (config.equals(query + "-rocksdb")) {
        return new NexmarkRun(query, StateBackendSetting.ROCKSDB_INCREMENTAL, false);
      } else if (config.equals(query + "-rocksdb-cp10s")) {
        return new NexmarkRun(query, StateBackendSetting.ROCKSDB_INCREMENTAL, true);
      }
    }
    throw new IllegalArgumentException(
        "Unknown Nexmark configuration '"
            + config
            + "'; use <query>[-rocksdb][-cp10s] with a query of "
            + NexmarkResults.QUERIES);
  }

  /**
   * The engine settings (Flink 2.x keys, which Weir reads too): no restarts, the backend, and
   * checkpoints every 10 s into {@code checkpointDir} when on.
   */
  public Map<String, String> settings(Map<String, String> backendSettings, String checkpointDir) {
    Map<String, String> settings = new LinkedHashMap<>();
    settings.put("restart-strategy.type", "none");
    settings.putAll(backendSettings);
    if (checkpoints) {
      settings.put("execution.checkpointing.interval", "10s");
      settings.put("execution.checkpointing.dir", checkpointDir);
    }
    return settings;
  }
}
