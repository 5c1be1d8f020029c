package io.weir.benchmarks.w3;

import io.weir.benchmarks.Engine;
import io.weir.benchmarks.Result;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;

/**
 * What the W3 large-state mains share: the configurations, the key and value of each record, and
 * the {@code RESULT} line with its checkpoint figures.
 *
 * <p>The job: {@code fromSequence(1, N)} → {@code keyBy(i % 2 000 000)} → a keyed process function
 * that writes a 100-byte {@code ValueState<byte[]>} per record without reading it and emits the key
 * → discarding sink; parallelism 2, a checkpoint every second into a fresh local directory. W5 runs
 * the same job with one injected failure.
 */
public final class W3Job {
  /**
   * The state backend of each configuration: see {@link io.weir.benchmarks.StateBackendSetting}.
   */
  public static final List<String> CONFIGS = List.of("heap", "rocksdb-incremental", "rocksdb-full");

  public static final long DEFAULT_RECORDS = 10_000_000L;
  public static final long KEYS = 2_000_000L;
  public static final int VALUE_BYTES = 100;
  public static final Duration CHECKPOINT_INTERVAL = Duration.ofSeconds(1);

  /** How often the Flink main asks the REST API for the checkpoints while the job runs. */
  public static final Duration FLINK_POLL_INTERVAL = Duration.ofMillis(200);

  private W3Job() {}

  /** The settings both engines get: checkpoints every second into {@code checkpointDir}. */
  public static Map<String, String> checkpointSettings(String checkpointDir) {
    return Map.of(
        "execution.checkpointing.interval",
        CHECKPOINT_INTERVAL.toMillis() + "ms",
        "execution.checkpointing.dir",
        checkpointDir);
  }

  /** Record {@code i}'s key. */
  public static long key(long i) {
    return i % KEYS;
  }

  /** Record {@code i}'s value: bytes 0–7 are {@code i} big-endian, bytes 8–99 {@code (byte) i}. */
  public static byte[] value(long i) {
    byte[] value = new byte[VALUE_BYTES];
    for (int b = 0; b < Long.BYTES; b++) {
      value[b] = (byte) (i >>> (56 - 8 * b));
    }
    Arrays.fill(value, Long.BYTES, VALUE_BYTES, (byte) i);
    return value;
  }

  /**
   * One completed checkpoint, as the engine reports it.
   *
   * @param stateSizeBytes the whole state the checkpoint refers to, files shared with earlier
   *     incremental checkpoints included (Flink's {@code state_size})
   * @param checkpointedSizeBytes what this checkpoint uploaded (Flink's {@code checkpointed_size});
   *     the same as the state size for a full checkpoint
   * @param endToEndMillis from trigger to completion
   */
  public record CompletedCheckpoint(
      long id, long stateSizeBytes, long checkpointedSizeBytes, long endToEndMillis) {}

  /**
   * One run of the job.
   *
   * @param nanos wall time from submission to the job's end (shutdown included)
   * @param checkpoints the completed checkpoints seen, oldest first
   */
  public record Run(long nanos, List<CompletedCheckpoint> checkpoints) {
    public Run {
      checkpoints = List.copyOf(checkpoints);
    }
  }

  /**
   * The {@code RESULT}: records/s, then the figures of the checkpoints that hold state: the last
   * one's state size, uploaded size and end-to-end duration, the median uploaded size, and how many
   * completed in all ({@code n/a} where none held state).
   *
   * <p>Both engines end a bounded job with a final checkpoint taken when the tasks have ended their
   * input, and a task that has finished reports no state in it: such a checkpoint says nothing
   * about the job's state, so only checkpoints with a state size above zero are counted here.
   */
  public static Result result(Engine engine, String config, long records, Run run) {
    Result result = Result.of(engine, "W3", config, records, run.nanos());
    List<CompletedCheckpoint> withState =
        run.checkpoints().stream().filter(c -> c.stateSizeBytes() > 0).toList();
    String completed = Integer.toString(run.checkpoints().size());
    if (withState.isEmpty()) {
      return result
          .with("lastCpStateBytes", "n/a")
          .with("lastCpUploadedBytes", "n/a")
          .with("lastCpMs", "n/a")
          .with("uploadedP50Bytes", "n/a")
          .with("completed", completed);
    }
    CompletedCheckpoint last = withState.get(withState.size() - 1);
    List<Long> uploaded = new ArrayList<>();
    for (CompletedCheckpoint checkpoint : withState) {
      uploaded.add(checkpoint.checkpointedSizeBytes());
    }
    Collections.sort(uploaded);
    return result
        .with("lastCpStateBytes", Long.toString(last.stateSizeBytes()))
        .with("lastCpUploadedBytes", Long.toString(last.checkpointedSizeBytes()))
        .with("lastCpMs", Long.toString(last.endToEndMillis()))
        .with("uploadedP50Bytes", Long.toString(median(uploaded)))
        .with("completed", completed);
  }

  private static long median(List<Long> sorted) {
    int mid = sorted.size() / 2;
    return sorted.size() % 2 == 1 ? sorted.get(mid) : (sorted.get(mid - 1) + sorted.get(mid)) / 2;
  }
}
