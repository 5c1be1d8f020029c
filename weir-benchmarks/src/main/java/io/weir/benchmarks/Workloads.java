package io.weir.benchmarks;

import io.weir.benchmarks.nexmark.FlinkNexmark;
import io.weir.benchmarks.nexmark.NexmarkRun;
import io.weir.benchmarks.nexmark.WeirNexmark;
import io.weir.benchmarks.tumble.FlinkTumble;
import io.weir.benchmarks.tumble.TumbleJob;
import io.weir.benchmarks.tumble.WeirTumble;
import io.weir.benchmarks.w1.FlinkKeyedCount;
import io.weir.benchmarks.w1.PlainJavaKeyedCount;
import io.weir.benchmarks.w1.WeirKeyedCount;
import io.weir.benchmarks.w2.FlinkKeyedCountRocksDb;
import io.weir.benchmarks.w2.WeirKeyedCountRocksDb;
import io.weir.benchmarks.w3.FlinkLargeState;
import io.weir.benchmarks.w3.W3Job;
import io.weir.benchmarks.w3.WeirLargeState;
import io.weir.benchmarks.w4.FlinkBackpressure;
import io.weir.benchmarks.w4.W4Job;
import io.weir.benchmarks.w4.WeirBackpressure;
import io.weir.benchmarks.w5.FlinkRecovery;
import io.weir.benchmarks.w5.W5Job;
import io.weir.benchmarks.w5.WeirRecovery;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The registry of workloads the side-by-side runner knows: one {@link #register} line each, with
 * the mains written against {@link JobArgs} and {@link Result}.
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

  /** W1 on the RocksDB backend with incremental checkpoints; checkpointing off and every second. */
  public static final Workload W2 =
      register(
          new Workload(
              "W2",
              "keyed-count-rocksdb",
              20_000_000L,
              OFF_AND_1S,
              Map.of(
                  Engine.WEIR, WeirKeyedCountRocksDb.class,
                  Engine.FLINK, FlinkKeyedCountRocksDb.class)));

  /**
   * 2 000 000 keys of a 100-byte {@code ValueState<byte[]>} written blind, a checkpoint every
   * second, on the heap backend and on RocksDB with incremental and with full checkpoints.
   */
  public static final Workload W3 =
      register(
          new Workload(
              "W3",
              "large-state",
              W3Job.DEFAULT_RECORDS,
              W3Job.CONFIGS,
              Map.of(
                  Engine.WEIR, WeirLargeState.class,
                  Engine.FLINK, FlinkLargeState.class),
              Duration.ZERO,
              "lastCp… = the last completed checkpoint that holds state (not the final one a"
                  + " bounded job takes after its tasks finished): StateBytes = size of the whole"
                  + " state it refers to, UploadedBytes = bytes it wrote (below the state size only"
                  + " for incremental checkpoints), Ms = end-to-end duration; uploadedP50Bytes ="
                  + " median bytes written per checkpoint that holds state; completed = checkpoints"
                  + " completed, final ones included (Flink: those its REST API showed while the"
                  + " job ran)"));

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

  /**
   * W3 (heap, RocksDB incremental) with one task failure injected after half the records and a
   * fixed-delay restart with no delay; its job time is set against W3's when both ran.
   */
  public static final Workload W5 =
      register(
          new Workload(
              "W5",
              "recovery",
              W3Job.DEFAULT_RECORDS,
              W5Job.CONFIGS,
              Map.of(
                  Engine.WEIR, WeirRecovery.class,
                  Engine.FLINK, FlinkRecovery.class),
              Duration.ZERO,
              "rec/s = records / total job time, the failure and restore included; recoveryMs ="
                  + " from the injected failure to the first record processed after the restore;"
                  + " failedAfter = records processed when the failure was thrown",
              "W3"));

  /**
   * W1's job fed at 100 000 rec/s, each record stamped at emission; end-to-end latency in HDR
   * histograms, checkpoints every second, aligned and unaligned (io.weir.benchmarks.w7).
   */
  public static final Workload W7 = register(io.weir.benchmarks.w7.W7Job.WORKLOAD);

  /**
   * Nexmark q0–q8 over the generator's persons, auctions and bids, in configurations {@code
   * <query>[-rocksdb][-cp10s]}; rec/s are events/s.
   */
  public static final Workload NEXMARK =
      register(
          new Workload(
              "NEXMARK",
              "nexmark",
              NexmarkRun.DEFAULT_EVENTS,
              NexmarkRun.CONFIGS,
              Map.of(
                  Engine.WEIR, WeirNexmark.class,
                  Engine.FLINK, FlinkNexmark.class),
              Duration.ZERO,
              "rec/s = Nexmark events generated and processed per second of job time (2 subtasks;"
                  + " per core: half of it); config = query[-rocksdb][-cp10s], heap and"
                  + " checkpointing off without a suffix"));

  /**
   * Issue 15's tumbling-window aggregate: 1 s event-time windows over 100 000 keys, a count per key
   * and window, heap and RocksDB with a checkpoint every second (and heap with none).
   */
  public static final Workload TUMBLE =
      register(
          new Workload(
              "TUMBLE",
              "tumbling-window-100k-keys",
              TumbleJob.DEFAULT_RECORDS,
              TumbleJob.CONFIGS,
              Map.of(
                  Engine.WEIR, WeirTumble.class,
                  Engine.FLINK, FlinkTumble.class)));

  /** W1 on TaskManager processes, and recovery from a SIGKILL (io.weir.benchmarks.w8). */
  public static final Workload W8 = register(io.weir.benchmarks.w8.W8.WORKLOAD);

  /**
   * W8's job under ZooKeeper high availability with the leading JobManager SIGKILLed
   * (io.weir.benchmarks.w8.JmFailover).
   */
  public static final Workload JM_FAILOVER = register(io.weir.benchmarks.w8.JmFailover.WORKLOAD);

  /** W3 with checkpoints on local disk, HDFS and S3 (io.weir.benchmarks.w3s). */
  public static final Workload W3S = register(io.weir.benchmarks.w3s.W3sJob.WORKLOAD);

  /** Kafka → keyed count → Kafka, exactly-once and at-least-once (io.weir.benchmarks.kafka). */
  public static final Workload KAFKA = register(io.weir.benchmarks.kafka.KafkaBench.THROUGHPUT);

  /** The same job's end-to-end latency at a fixed input rate (io.weir.benchmarks.kafka). */
  public static final Workload KAFKA_LATENCY =
      register(io.weir.benchmarks.kafka.KafkaBench.LATENCY);

  /**
   * Issue 13: a savepoint of W3's state (2 000 000 keys × 100 bytes) taken while the job runs, and
   * a restore from it, heap and RocksDB (io.weir.benchmarks.savepoint).
   */
  public static final Workload SAVEPOINT =
      register(
          new Workload(
              io.weir.benchmarks.savepoint.SavepointJob.WORKLOAD,
              "savepoint-w3-state",
              io.weir.benchmarks.savepoint.SavepointJob.DEFAULT_RECORDS,
              io.weir.benchmarks.savepoint.SavepointJob.CONFIGS,
              Map.of(
                  Engine.WEIR, io.weir.benchmarks.savepoint.WeirSavepoint.class,
                  Engine.FLINK, io.weir.benchmarks.savepoint.FlinkSavepoint.class),
              Duration.ZERO,
              "rec/s = records / time until the keyed function processed them all (the load);"
                  + " takeMs = savepoint trigger until its path returned (canonical format);"
                  + " savepointBytes = the files of its directory; restoreMs = submission from the"
                  + " savepoint until every keyed subtask processed a first record (all state"
                  + " loaded); startMs = the same for a stateless submission after it (the local"
                  + " cluster's start and deployment, warm);"
                  + " nativeTakeMs, nativeBytes = Flink's NATIVE savepoint, taken after the"
                  + " canonical one, not restored"));

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
