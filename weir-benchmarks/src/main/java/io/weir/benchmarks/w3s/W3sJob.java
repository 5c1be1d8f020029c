package io.weir.benchmarks.w3s;

import io.weir.benchmarks.Engine;
import io.weir.benchmarks.Result;
import io.weir.benchmarks.Workload;
import io.weir.benchmarks.w3.W3Job;
import io.weir.benchmarks.w3.W3Job.CompletedCheckpoint;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * W3S: W3's job (see {@link W3Job}) with its checkpoints on local disk, on HDFS or on S3, on the
 * heap backend or RocksDB with incremental checkpoints. A configuration is {@code
 * <storage>-<backend>}, such as {@code s3-rocksdb-incremental}.
 */
public final class W3sJob {
  public static final String ID = "W3S";
  public static final List<String> BACKENDS = List.of("heap", "rocksdb-incremental");
  public static final List<String> CONFIGS = configs();

  /** The runner's entry: Weir only (the figure is Weir's storage protocols, not a comparison). */
  public static final Workload WORKLOAD =
      new Workload(
          ID,
          "large-state-storage",
          W3Job.DEFAULT_RECORDS,
          CONFIGS,
          Map.of(Engine.WEIR, WeirStorageState.class),
          Duration.ZERO,
          "config = <storage>-<backend>: checkpoints on local disk, on HDFS (a mini cluster) or on"
              + " S3 (s3proxy), both servers on this machine in a helper JVM; lastCp… = the last"
              + " completed checkpoint that holds state: StateBytes = whole state it refers to,"
              + " UploadedBytes = bytes it wrote, Ms = end-to-end duration; cpP50Ms, uploadedP50Bytes"
              + " = medians over the checkpoints that hold state; completed = checkpoints completed,"
              + " the final one included");

  private W3sJob() {}

  private static List<String> configs() {
    List<String> configs = new ArrayList<>();
    for (Storage storage : Storage.values()) {
      for (String backend : BACKENDS) {
        configs.add(storage.id() + "-" + backend);
      }
    }
    return List.copyOf(configs);
  }

  /** The storage of {@code config}. */
  public static Storage storage(String config) {
    return Storage.ofId(config.substring(0, config.indexOf('-')));
  }

  /** The state backend of {@code config}, a {@link io.weir.benchmarks.StateBackendSetting} id. */
  public static String backend(String config) {
    return config.substring(config.indexOf('-') + 1);
  }

  /**
   * The {@code RESULT}: records/s, and of the checkpoints that hold state (see {@link
   * W3Job#result}): the last one's state size, uploaded size and end-to-end duration, the median
   * end-to-end duration and upload, and how many completed in all.
   */
  public static Result result(String config, long records, W3Job.Run run) {
    Result result = Result.of(Engine.WEIR, ID, config, records, run.nanos());
    List<CompletedCheckpoint> withState =
        run.checkpoints().stream().filter(c -> c.stateSizeBytes() > 0).toList();
    String completed = Integer.toString(run.checkpoints().size());
    if (withState.isEmpty()) {
      return result
          .with("lastCpStateBytes", "n/a")
          .with("lastCpUploadedBytes", "n/a")
          .with("lastCpMs", "n/a")
          .with("cpP50Ms", "n/a")
          .with("uploadedP50Bytes", "n/a")
          .with("completed", completed);
    }
    CompletedCheckpoint last = withState.get(withState.size() - 1);
    return result
        .with("lastCpStateBytes", Long.toString(last.stateSizeBytes()))
        .with("lastCpUploadedBytes", Long.toString(last.checkpointedSizeBytes()))
        .with("lastCpMs", Long.toString(last.endToEndMillis()))
        .with(
            "cpP50Ms",
            Long.toString(median(withState.stream().map(CompletedCheckpoint::endToEndMillis))))
        .with(
            "uploadedP50Bytes",
            Long.toString(
                median(withState.stream().map(CompletedCheckpoint::checkpointedSizeBytes))))
        .with("completed", completed);
  }

  static long median(java.util.stream.Stream<Long> values) {
    List<Long> sorted = values.sorted().toList();
    int mid = sorted.size() / 2;
    return sorted.size() % 2 == 1 ? sorted.get(mid) : (sorted.get(mid - 1) + sorted.get(mid)) / 2;
  }
}
