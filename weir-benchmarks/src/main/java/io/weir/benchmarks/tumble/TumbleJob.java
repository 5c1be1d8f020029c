package io.weir.benchmarks.tumble;

import io.weir.benchmarks.StateBackendSetting;
import java.io.Serializable;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The tumbling-window workload of issue 15, shared by both engines' mains: {@code fromSequence(1,
 * N)} with event time, W1's key ({@code ((i * 0x9E3779B97F4A7C15L) >>> 47) % 100_000}), 1 s
 * tumbling event-time windows, a count per key and window ({@code aggregate}: one accumulator per
 * key and window), a discarding sink.
 *
 * <p>Event time: the sequence is split into one contiguous half per subtask (both engines split it
 * so at parallelism 2), and record {@code i} gets {@code ((i - 1) % half) / 500} ms, so each
 * subtask makes 500 records per ms, 1 000 000 per second together, and the two halves advance event
 * time side by side: a window holds about 1 000 000 records over the 100 000 keys, and about one
 * window per key is open at a time.
 *
 * <p>Configurations: {@code off} (heap, no checkpoints), {@code heap} and {@code rocksdb}
 * (incremental), both with a checkpoint every second.
 */
public final class TumbleJob {
  private TumbleJob() {}

  public static final List<String> CONFIGS = List.of("off", "heap", "rocksdb");
  public static final long DEFAULT_RECORDS = 10_000_000L;
  public static final long KEYS = 100_000;
  public static final long WINDOW_MS = 1_000;

  /** The key of record {@code i}, as W1's. */
  public static long key(long i) {
    return ((i * 0x9E3779B97F4A7C15L) >>> 47) % KEYS;
  }

  /** Event time of record {@code i} of {@code records} (from 1). */
  public record EventTime(long records) implements Serializable {
    public long of(long i) {
      long half = (records + 1) / 2;
      return ((i - 1) % half) / 500;
    }
  }

  /** The backend of a configuration. */
  public static StateBackendSetting backend(String config) {
    return config.equals("rocksdb")
        ? StateBackendSetting.ROCKSDB_INCREMENTAL
        : StateBackendSetting.HEAP;
  }

  /** The settings (Flink 2.x keys, which Weir reads too) of a configuration. */
  public static Map<String, String> settings(
      String config, Map<String, String> backendSettings, String checkpointDir) {
    Map<String, String> settings = new LinkedHashMap<>();
    settings.put("restart-strategy.type", "none");
    settings.putAll(backendSettings);
    if (!config.equals("off")) {
      settings.put("execution.checkpointing.interval", "1s");
      settings.put("execution.checkpointing.dir", checkpointDir);
    }
    return settings;
  }
}
