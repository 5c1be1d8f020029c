package io.weir.benchmarks;

import io.weir.benchmarks.w1.FlinkKeyedCount;
import io.weir.benchmarks.w1.PlainJavaKeyedCount;
import io.weir.benchmarks.w1.WeirKeyedCount;
import io.weir.benchmarks.w4.FlinkBackpressure;
import io.weir.benchmarks.w4.W4Job;
import io.weir.benchmarks.w4.WeirBackpressure;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The registry of workloads the side-by-side runner knows. Adding W2..W5 is one more {@link
 * #register} line each, with the mains written against {@link JobArgs} and {@link Result}.
 */
public final class Workloads {
  private static final Map<String, Workload> BY_ID = new LinkedHashMap<>();

  /** Checkpointing off, and every second; the configurations of W1 and W2. */
  public static final List<String> OFF_AND_1S = List.of("off", "cp1s");

  public static final Workload W1 =
      register(
          new Workload(
              "W1",
              "keyed-count",
              20_000_000L,
              OFF_AND_1S,
              Map.of(
                  Engine.WEIR, WeirKeyedCount.class,
                  Engine.FLINK, FlinkKeyedCount.class,
                  Engine.PLAIN, PlainJavaKeyedCount.class)));

  /**
   * W1 with a sink that sleeps 1 ms every 100 records, checkpoints every second, aligned, unaligned
   * or unaligned after a 100 ms aligned timeout; each run lasts 30 s and is then cancelled.
   */
  public static final Workload W4 =
      register(
          new Workload(
              "W4",
              "backpressure",
              Long.MAX_VALUE,
              W4Job.CONFIGS,
              Map.of(
                  Engine.WEIR, WeirBackpressure.class,
                  Engine.FLINK, FlinkBackpressure.class),
              Duration.ofSeconds(30),
              "rec/s = records that reached the sink / 30 s; cpP50, cpMax = end-to-end duration of"
                  + " the completed checkpoints, ms; alignMax = longest alignment of any subtask,"
                  + " ms; inflightMax = most in-flight bytes one checkpoint persisted; completed ="
                  + " checkpoints completed in the 30 s"));

  private Workloads() {}

  private static Workload register(Workload workload) {
    BY_ID.put(workload.id(), workload);
    return workload;
  }

  /** All registered workloads, in registration order. */
  public static List<Workload> all() {
    return List.copyOf(BY_ID.values());
  }

  /** The workload with {@code id} (case-insensitive); the error lists those registered. */
  public static Workload byId(String id) {
    Workload workload = BY_ID.get(id.toUpperCase(Locale.ROOT));
    if (workload == null) {
      throw new IllegalArgumentException(
          "Unknown workload '" + id + "'; registered: " + String.join(", ", BY_ID.keySet()) + ".");
    }
    return workload;
  }
}
