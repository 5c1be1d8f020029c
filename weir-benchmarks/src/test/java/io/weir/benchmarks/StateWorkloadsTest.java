package io.weir.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.entry;

import io.weir.benchmarks.w3.W3Job;
import io.weir.benchmarks.w3.W3Job.CompletedCheckpoint;
import io.weir.benchmarks.w5.W5Job;
import java.util.List;
import org.junit.jupiter.api.Test;

/** W2, W3 and W5's shared pieces, without running a job. */
class StateWorkloadsTest {

  @Test
  void aW3ValueIsTheRecordBigEndianThenItsLowByte() {
    byte[] value = W3Job.value(0x0102030405060708L);

    assertThat(value).hasSize(100);
    assertThat(value).startsWith(1, 2, 3, 4, 5, 6, 7, 8);
    for (int b = 8; b < 100; b++) {
      assertThat(value[b]).isEqualTo((byte) 8);
    }
    assertThat(W3Job.key(2_000_003L)).isEqualTo(3L);
  }

  @Test
  void w3ReportsTheLastCheckpointThatHoldsStateNotTheFinalEmptyOne() {
    W3Job.Run run =
        new W3Job.Run(
            2_000_000_000L,
            List.of(
                new CompletedCheckpoint(1, 100, 100, 30),
                new CompletedCheckpoint(2, 300, 40, 50),
                new CompletedCheckpoint(3, 350, 60, 70),
                new CompletedCheckpoint(4, 0, 0, 5)));

    Result result = W3Job.result(Engine.FLINK, "rocksdb-incremental", 1_000, run);

    assertThat(result.extra())
        .containsExactly(
            entry("lastCpStateBytes", "350"),
            entry("lastCpUploadedBytes", "60"),
            entry("lastCpMs", "70"),
            entry("uploadedP50Bytes", "60"),
            entry("completed", "4"));
  }

  @Test
  void w3WithoutACheckpointThatHoldsStateSaysSo() {
    Result result =
        W3Job.result(
            Engine.WEIR,
            "heap",
            1_000,
            new W3Job.Run(1_000, List.of(new CompletedCheckpoint(1, 0, 0, 3))));

    assertThat(result.extra())
        .containsEntry("lastCpStateBytes", "n/a")
        .containsEntry("completed", "1");
  }

  @Test
  void stateBackendConfigurationsUseFlinksKeys() {
    assertThat(StateBackendSetting.ofId("rocksdb-incremental").flinkSettings())
        .containsExactly(
            entry("state.backend.type", "rocksdb"),
            entry("execution.checkpointing.incremental", "true"));
    assertThat(StateBackendSetting.ofId("heap").weirSettings())
        .containsEntry("state.backend.type", "hashmap");
    assertThatThrownBy(() -> StateBackendSetting.ofId("rocks")).hasMessageContaining("'rocks'");
  }

  @Test
  void weirOnRocksDbStopsAtOnceWhileItsBackendIsMissing() {
    boolean present;
    try {
      Class.forName(StateBackendSetting.WEIR_ROCKSDB_CLASS);
      present = true;
    } catch (ClassNotFoundException e) {
      present = false;
    }
    if (present) {
      assertThat(StateBackendSetting.ROCKSDB_FULL.weirSettings())
          .containsEntry("execution.checkpointing.incremental", "false");
    } else {
      assertThatThrownBy(StateBackendSetting.ROCKSDB_FULL::weirSettings)
          .hasMessageContaining("weir-state-rocksdb")
          .hasMessageContaining("--engines flink");
    }
  }

  @Test
  void w5RunsW3sJobInTwoOfItsConfigurationsAndIsComparedWithIt() {
    // Plus RocksDB incremental with task-local recovery, which W3 (no failure) has no use for.
    assertThat(Workloads.W5.configs())
        .containsExactly("heap", "rocksdb-incremental", "rocksdb-incremental-local");
    assertThat(Workloads.W3.configs()).containsAll(Workloads.W5.configs().subList(0, 2));
    assertThat(StateBackendSetting.ofId("rocksdb-incremental-local").flinkSettings())
        .containsExactly(
            entry("state.backend.type", "rocksdb"),
            entry("execution.checkpointing.incremental", "true"),
            entry("execution.state-recovery.from-local", "true"));
    assertThat(Workloads.W5.comparedWith()).isEqualTo("W3");
    assertThat(Workloads.W5.defaultRecords()).isEqualTo(Workloads.W3.defaultRecords());
    assertThat(W5Job.failAfter(10_000_000L)).isEqualTo(5_000_000L);
    assertThat(W5Job.restartSettings())
        .containsEntry("restart-strategy.type", "fixed-delay")
        .containsEntry("restart-strategy.fixed-delay.delay", "0 ms");
  }

  @Test
  void theReportSetsW5sJobTimeAgainstW3s() {
    RunnerOptions options =
        RunnerOptions.parse(
            new String[] {"--workloads", "W3,W5", "--configs", "heap", "--runs", "1"});
    Report report = new Report(options);
    report.add(Result.of(Engine.WEIR, "W3", "heap", 10_000_000L, 20_000_000_000L));
    report.add(Result.of(Engine.WEIR, "W5", "heap", 10_000_000L, 22_000_000_000L));

    assertThat(report.render("cmd", "-Xmx4g"))
        .contains(
            "- W5 recovery, heap: total job time against W3 large-state (the same job without the"
                + " failure): Weir 22.00 s against 20.00 s (+10.0 %).");
  }

  @Test
  void theReportSaysHowToCompareW5WhenW3DidNotRun() {
    RunnerOptions options =
        RunnerOptions.parse(new String[] {"--workloads", "W5", "--configs", "heap", "--runs", "1"});
    Report report = new Report(options);
    report.add(Result.of(Engine.WEIR, "W5", "heap", 10_000_000L, 22_000_000_000L));

    assertThat(report.render("cmd", "-Xmx4g")).contains("(--workloads W3,W5)");
  }
}
