package io.weir.benchmarks.w3s;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

import io.weir.benchmarks.Engine;
import io.weir.benchmarks.Result;
import io.weir.benchmarks.Workloads;
import io.weir.benchmarks.w3.W3Job;
import io.weir.benchmarks.w3.W3Job.CompletedCheckpoint;
import java.util.List;
import org.junit.jupiter.api.Test;

/** W3S's wiring, without running a job or a server. */
class W3sJobTest {

  @Test
  void theRunnerKnowsW3sOnWeirOnlyInEveryStorageAndBackend() {
    assertThat(Workloads.byId("w3s").configs())
        .containsExactly(
            "local-heap",
            "local-rocksdb-incremental",
            "hdfs-heap",
            "hdfs-rocksdb-incremental",
            "s3-heap",
            "s3-rocksdb-incremental");
    assertThat(Workloads.W3S.main(Engine.WEIR)).contains(WeirStorageState.class);
    assertThat(Workloads.W3S.main(Engine.FLINK)).isEmpty();
    assertThat(W3sJob.storage("s3-rocksdb-incremental")).isEqualTo(Storage.S3);
    assertThat(W3sJob.backend("s3-rocksdb-incremental")).isEqualTo("rocksdb-incremental");
    assertThat(W3sJob.storage("hdfs-heap")).isEqualTo(Storage.HDFS);
  }

  @Test
  void reportsTheLastAndTheMedianCheckpointThatHoldsState() {
    W3Job.Run run =
        new W3Job.Run(
            2_000_000_000L,
            List.of(
                new CompletedCheckpoint(1, 100, 100, 30),
                new CompletedCheckpoint(2, 300, 40, 90),
                new CompletedCheckpoint(3, 350, 60, 70),
                new CompletedCheckpoint(4, 0, 0, 5)));

    Result result = W3sJob.result("hdfs-rocksdb-incremental", 1_000, run);

    assertThat(result.workload()).isEqualTo("W3S");
    assertThat(result.extra())
        .containsExactly(
            entry("lastCpStateBytes", "350"),
            entry("lastCpUploadedBytes", "60"),
            entry("lastCpMs", "70"),
            entry("cpP50Ms", "70"),
            entry("uploadedP50Bytes", "60"),
            entry("completed", "4"));
  }
}
