package io.weir.benchmarks.w8;

import static org.assertj.core.api.Assertions.assertThat;

import io.weir.benchmarks.Engine;
import io.weir.benchmarks.Workloads;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class W8Test {

  @Test
  void isRegisteredWithBothEnginesAndItsSixConfigurations() {
    assertThat(Workloads.byId("w8")).isSameAs(Workloads.W8);
    assertThat(Workloads.W8.configs())
        .containsExactly(
            "embedded", "cluster", "single-tm", "recovery", "embedded-warm", "cluster-warm");
    assertThat(Workloads.W8.mains()).containsOnlyKeys(Engine.WEIR, Engine.FLINK);
    assertThat(Workloads.W8.timed()).isFalse();
  }

  @Test
  void onlySingleTmPutsTwoSlotsOnOneTaskManager() {
    assertThat(W8Run.slotsPerTaskManager("single-tm")).isEqualTo(2);
    assertThat(W8Run.slotsPerTaskManager("cluster")).isEqualTo(1);
    assertThat(W8Run.slotsPerTaskManager("recovery")).isEqualTo(1);
  }

  @Test
  void theWarmConfigurationsAreTheColdOnesOnASecondJob() {
    assertThat(W8Run.CONFIGS.stream().filter(W8Run::warm))
        .containsExactly("embedded-warm", "cluster-warm");
    assertThat(W8Run.CONFIGS.stream().filter(W8Run::embedded))
        .containsExactly("embedded", "embedded-warm");
    assertThat(W8Run.slotsPerTaskManager("cluster-warm")).isEqualTo(1);
  }

  @Test
  void onlyTheRecoveryRestarts(@TempDir Path dir) {
    assertThat(W8Run.jobSettings("cluster", dir)).containsEntry("restart-strategy.type", "none");
    assertThat(W8Run.jobSettings("recovery", dir))
        .containsEntry("restart-strategy.type", "fixed-delay")
        .containsEntry("restart-strategy.fixed-delay.delay", "0 ms")
        .containsEntry("execution.checkpointing.interval", "1s");
  }

  @Test
  void stampsAreReadBackAndLaterThanTheirStart(@TempDir Path dir) throws Exception {
    long before = FirstRecordMarker.epochMicros(Instant.now());
    FirstRecordMarker.stamp(dir.toString());
    FirstRecordMarker.stamp(dir.toString());
    FirstRecordMarker.stamp(""); // no directory: nothing
    List<Long> stamps = FirstRecordMarker.read(dir);
    assertThat(stamps).hasSize(2).allSatisfy(s -> assertThat(s).isGreaterThanOrEqualTo(before));
  }

  @Test
  void theJobJarHoldsThisPackageOnly(@TempDir Path dir) throws Exception {
    Path jar = JobJar.write(dir.resolve("job.jar"));
    try (JarFile file = new JarFile(jar.toFile())) {
      List<String> names = file.stream().map(JarEntry::getName).toList();
      assertThat(names)
          .contains(
              "io/weir/benchmarks/w8/WeirW8Job.class",
              "io/weir/benchmarks/w8/WeirW8Job$CountPerKey.class",
              "io/weir/benchmarks/w8/FlinkW8Job$CountPerKey.class",
              "io/weir/benchmarks/w8/FirstRecordMarker.class");
      assertThat(names.stream().filter(n -> n.endsWith(".class")))
          .allSatisfy(n -> assertThat(n).startsWith("io/weir/benchmarks/w8/"));
    }
    assertThat(Files.size(jar)).isPositive();
  }
}
