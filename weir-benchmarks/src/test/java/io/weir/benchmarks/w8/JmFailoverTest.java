package io.weir.benchmarks.w8;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.weir.benchmarks.Engine;
import io.weir.benchmarks.Workloads;
import io.weir.benchmarks.w8.ProcessingTrace.Stamp;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class JmFailoverTest {
  /** The kill, in epoch microseconds (a round second, so the arithmetic below reads easily). */
  private static final long KILL = 1_000_000_000_000_000L;

  private static final long MS = 1000;

  /**
   * A trace of an instance processing 1000 records every 10 ms from {@code fromMs} to {@code toMs}
   * (both relative to the kill, inclusive).
   */
  private static List<Stamp> processing(long fromMs, long toMs) {
    List<Stamp> trace = new ArrayList<>();
    long records = 1;
    for (long t = fromMs; t <= toMs; t += 10) {
      trace.add(new Stamp(KILL + t * MS, records));
      records += 1000;
    }
    return trace;
  }

  /** Checkpoints completing every second, {@code offsetMs} after each full second of the kill. */
  private static List<Long> checkpoints(long fromS, long toS, long offsetMs) {
    List<Long> completed = new ArrayList<>();
    for (long s = fromS; s <= toS; s++) {
      completed.add(KILL / MS + s * 1000 + offsetMs);
    }
    return completed;
  }

  @Test
  void isRegisteredWithBothEnginesAndTheTwoSteps() {
    assertThat(Workloads.byId("jm-failover")).isSameAs(Workloads.JM_FAILOVER);
    assertThat(JmFailover.WORKLOAD.configs()).containsExactly("step1", "step2");
    assertThat(JmFailover.WORKLOAD.mains()).containsOnlyKeys(Engine.WEIR, Engine.FLINK);
    assertThat(JmFailover.WORKLOAD.timed()).isTrue();
  }

  @Test
  void stepOneTurnsWeirsAdoptionOffAndTheRestIsTheSameOnBothEngines(@TempDir Path dir) {
    var weir1 = JmFailover.clusterSettings(Engine.WEIR, "step1", "127.0.0.1:2181", dir);
    var weir2 = JmFailover.clusterSettings(Engine.WEIR, "step2", "127.0.0.1:2181", dir);
    var flink1 = JmFailover.clusterSettings(Engine.FLINK, "step1", "127.0.0.1:2181", dir);
    var flink2 = JmFailover.clusterSettings(Engine.FLINK, "step2", "127.0.0.1:2181", dir);
    assertThat(weir1).containsEntry("high-availability.jobmanager-loss-grace", "0 s");
    assertThat(weir2).doesNotContainKey("high-availability.jobmanager-loss-grace");
    assertThat(flink1)
        .isEqualTo(flink2)
        .doesNotContainKey("high-availability.jobmanager-loss-grace");
    for (var settings : List.of(weir1, weir2, flink1)) {
      assertThat(settings)
          .containsEntry("high-availability.type", "zookeeper")
          .containsEntry("high-availability.zookeeper.quorum", "127.0.0.1:2181")
          .containsEntry("high-availability.storageDir", dir.toUri().toString())
          .containsEntry("high-availability.zookeeper.client.session-timeout", "6 s");
    }
  }

  @Test
  void theLeaderZnodesAreWhereEachEnginePublishes() {
    assertThat(WeirBenchCluster.leaderZnode("/jm-failover"))
        .isEqualTo("/weir/jm-failover/leader/info");
    assertThat(FlinkBenchCluster.leaderZnode("/jm-failover"))
        .isEqualTo("/flink/jm-failover/leader/rest_server/connection_info");
  }

  @Test
  void aRestoredJobResumesWithItsFirstRestoredRecord() {
    // Two instances ran until 5 s after the kill (heartbeat timeout), two new ones from 9.2 s.
    List<List<Stamp>> traces =
        List.of(
            processing(-20_000, 5_000),
            processing(-20_000, 4_990),
            processing(9_200, 15_000),
            processing(9_230, 15_000));
    List<Long> completed = new ArrayList<>(checkpoints(-10, -1, 500)); // last one at -500 ms
    completed.addAll(checkpoints(10, 12, 300)); // first after at +10.3 s

    FailoverTimeline t =
        FailoverTimeline.of(KILL, KILL + 8_000 * MS, KILL - 9_500 * MS, traces, completed);

    assertThat(t.restored()).isEqualTo(2);
    assertThat(t.adopted()).isZero();
    assertThat(t.resumeMicros()).isEqualTo(9_200 * MS);
    assertThat(t.gapStartMicros()).isEqualTo(5_000 * MS);
    assertThat(t.gapEndMicros()).isEqualTo(9_200 * MS);
    assertThat(t.processingGapMicros()).isEqualTo(4_200 * MS);
    assertThat(t.lastCheckpointBeforeMillis()).isEqualTo(-500);
    assertThat(t.firstCheckpointAfterMillis()).isEqualTo(10_300);
    assertThat(t.outputGapMillis()).isEqualTo(10_800);
    // 9.5 s before the kill at 100 records/ms per instance, to the last line at or before it.
    assertThat(t.steadyMicros()).isEqualTo(9_500 * MS);
    assertThat(t.steadyRecords()).isEqualTo(2 * 950 * 1000);
  }

  @Test
  void anAdoptedJobResumesWithItsFirstRecordOnceTheNewLeaderRunsIt() {
    // Both instances keep processing through the failover; the new leader runs the job at +7.8 s.
    List<List<Stamp>> traces = List.of(processing(-20_000, 15_000), processing(-20_005, 15_005));
    List<Long> completed = new ArrayList<>(checkpoints(-10, -1, 500));
    completed.addAll(checkpoints(9, 12, 400));

    FailoverTimeline t =
        FailoverTimeline.of(KILL, KILL + 7_801 * MS, KILL - 9_500 * MS, traces, completed);

    assertThat(t.adopted()).isEqualTo(2);
    assertThat(t.restored()).isZero();
    assertThat(t.resumeMicros()).isEqualTo(7_805 * MS); // the second instance's line at +7.805 s
    assertThat(t.processingGapMicros()).isEqualTo(5 * MS); // never stopped: the lines interleave
    assertThat(t.outputGapMillis()).isEqualTo(9_400 + 500);
  }

  @Test
  void anInstanceThatStoppedBeforeTheNewLeadersFirstCheckpointWasNotAdopted() {
    // Old instances ran on to +9.5 s (cancelled late), a restored one started at +9.6 s; the new
    // leader's first checkpoint completed at +10.3 s.
    List<List<Stamp>> traces = List.of(processing(-20_000, 9_500), processing(9_600, 15_000));
    List<Long> completed = new ArrayList<>(checkpoints(-10, -1, 500));
    completed.addAll(checkpoints(10, 12, 300));

    FailoverTimeline t =
        FailoverTimeline.of(KILL, KILL + 8_000 * MS, KILL - 9_500 * MS, traces, completed);

    assertThat(t.adopted()).isZero();
    assertThat(t.restored()).isEqualTo(1);
    assertThat(t.resumeMicros()).isEqualTo(9_600 * MS);
    assertThat(t.processingGapMicros()).isEqualTo(100 * MS);
  }

  @Test
  void aPauseBeforeTheLastCheckpointBeforeTheKillIsNotTheFailoversGap() {
    // A pause of a second from -3 s to -2 s; the last checkpoint before the kill at -0.5 s.
    List<List<Stamp>> traces = List.of(processing(-20_000, -3_000), processing(-2_000, 15_000));
    List<Long> completed = new ArrayList<>(checkpoints(-19, -1, 500));
    completed.addAll(checkpoints(9, 12, 400));
    FailoverTimeline t = FailoverTimeline.of(KILL, KILL, KILL - 18_500 * MS, traces, completed);
    assertThat(t.processingGapMicros()).isEqualTo(10 * MS);
  }

  @Test
  void aRunWithoutACheckpointOnEitherSideOrARecordAfterTheKillIsRefused() {
    List<List<Stamp>> traces = List.of(processing(-20_000, 5_000));
    assertThatThrownBy(() -> FailoverTimeline.of(KILL, KILL, KILL, traces, checkpoints(1, 3, 0)))
        .hasMessageContaining("no checkpoint completed before the kill");
    assertThatThrownBy(() -> FailoverTimeline.of(KILL, KILL, KILL, traces, checkpoints(-3, -1, 0)))
        .hasMessageContaining("no checkpoint completed after the kill");
    List<Long> both = new ArrayList<>(checkpoints(-3, -1, 0));
    both.addAll(checkpoints(8, 9, 0));
    assertThatThrownBy(() -> FailoverTimeline.of(KILL, KILL, KILL, traces, both))
        .hasMessageContaining("no record was processed in the job after the kill");
  }

  @Test
  void recordsPerSecondSumsTheInstances() {
    List<List<Stamp>> traces = List.of(processing(0, 3_000), processing(0, 1_500));
    assertThat(FailoverTimeline.recordsPerSecond(traces, KILL))
        .containsExactly(200_000L, 150_000L, 100_000L);
  }

  @Test
  void aTraceHasALineForTheFirstRecordAndThenAtMostOneEveryStep(@TempDir Path dir)
      throws Exception {
    ProcessingTrace trace = ProcessingTrace.open(dir.toString());
    for (int i = 0; i < 10 * ProcessingTrace.CHECK_EVERY; i++) {
      trace.record();
    }
    Thread.sleep(ProcessingTrace.STEP_MICROS / 1000 + 5);
    for (int i = 0; i < ProcessingTrace.CHECK_EVERY; i++) {
      trace.record();
    }
    trace.close();
    // A line being written (no line end yet) is not read back.
    Files.writeString(Files.createTempFile(dir, "trace-", ".txt"), "12 1\n34");

    List<List<Stamp>> traces = ProcessingTrace.read(dir);
    assertThat(traces).hasSize(2);
    List<Stamp> written =
        traces.stream().filter(t -> t.get(0).records() == 1 && t.size() > 1).findFirst().get();
    assertThat(written).hasSize(2);
    assertThat(written.get(1).records()).isEqualTo(11L * ProcessingTrace.CHECK_EVERY);
    assertThat(written.get(1).micros() - written.get(0).micros())
        .isGreaterThanOrEqualTo(ProcessingTrace.STEP_MICROS);
    assertThat(traces).anySatisfy(t -> assertThat(t).containsExactly(new Stamp(12, 1)));
    assertThat(ProcessingTrace.open("")).isNull();
  }
}
