package io.weir.benchmarks.w7;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.weir.benchmarks.Engine;
import io.weir.benchmarks.Result;
import io.weir.benchmarks.Workloads;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** W7's pacing and histograms, on a clock driven by hand; no job runs. */
class W7JobTest {
  private static final long MS = 1_000_000L;
  private static final long SECOND = 1_000_000_000L;

  /** A clock that moves only when told to, and a park that moves it by what was asked. */
  private static final class HandClock {
    final AtomicLong now = new AtomicLong();
    final List<Long> parks = new ArrayList<>();

    long read() {
      return now.get();
    }

    void park(long nanos) {
      parks.add(nanos);
      now.addAndGet(nanos);
    }

    PacingSchedule schedule(long rate) {
      return new PacingSchedule(rate, now.get(), this::read, this::park);
    }
  }

  @Test
  void dueTimesFollowTheRateExactlyAndDoNotDrift() {
    PacingSchedule schedule = new PacingSchedule(50_000, 1_000, () -> 0, nanos -> {});

    assertThat(schedule.dueNanos(0)).isEqualTo(1_000);
    assertThat(schedule.dueNanos(1)).isEqualTo(1_000 + 20_000);
    assertThat(schedule.dueNanos(50_000)).isEqualTo(1_000 + SECOND);
    // 60 s of a subtask's records: due exactly at 60 s, no rounding piled up.
    assertThat(schedule.dueNanos(3_000_000)).isEqualTo(1_000 + 60 * SECOND);
    // A rate that does not divide a second: 3 per second is due at 1/3 s, 2/3 s, 1 s.
    PacingSchedule thirds = new PacingSchedule(3, 0, () -> 0, nanos -> {});
    assertThat(thirds.dueNanos(1)).isEqualTo(333_333_333L);
    assertThat(thirds.dueNanos(3)).isEqualTo(SECOND);
    assertThat(thirds.dueNanos(3_000_000_001L)).isEqualTo(1_000_000_000L * SECOND + 333_333_333L);
  }

  @Test
  void onTimeRecordsGoOutAtTheirDueTimeWithoutLag() {
    HandClock clock = new HandClock();
    PacingSchedule schedule = clock.schedule(50_000);

    for (int n = 0; n < 50_000; n++) {
      assertThat(schedule.awaitNext()).isZero();
      assertThat(clock.read()).isEqualTo(schedule.dueNanos(n));
    }
    assertThat(clock.read()).isEqualTo(SECOND - 20_000);
    assertThat(schedule.emitted()).isEqualTo(50_000);
    assertThat(clock.parks).allMatch(p -> p > 0 && p <= PacingSchedule.MAX_PARK_NANOS);
  }

  @Test
  void aLongWaitIsParkedInTicks() {
    HandClock clock = new HandClock();
    PacingSchedule schedule = clock.schedule(2); // one record every 500 ms

    schedule.awaitNext();
    schedule.awaitNext();

    assertThat(clock.read()).isEqualTo(500 * MS);
    assertThat(clock.parks).hasSize(2_500).allMatch(p -> p == PacingSchedule.MAX_PARK_NANOS);
  }

  @Test
  void afterAStallTheOverdueRecordsGoOutBackToBackUntilCaughtUp() {
    HandClock clock = new HandClock();
    PacingSchedule schedule = clock.schedule(50_000);
    for (int n = 0; n < 100; n++) {
      schedule.awaitNext();
    }
    clock.parks.clear();

    clock.now.addAndGet(10 * MS); // a 10 ms pause: 500 records overdue
    long firstLag = schedule.awaitNext();
    int backToBack = 1;
    while (clock.parks.isEmpty()) {
      schedule.awaitNext();
      backToBack++;
    }

    // Record 100 was due 20 µs after record 99, which went out 10 ms before.
    assertThat(firstLag).isEqualTo(10 * MS - 20_000);
    // Records 100..599 were overdue and went out back to back; record 600 is the first to wait.
    assertThat(backToBack).isEqualTo(501);
    // And the pace stays on the original schedule: no drift from the pause.
    while (schedule.emitted() < 50_000) {
      schedule.awaitNext();
    }
    assertThat(clock.read()).isEqualTo(SECOND - 20_000);
  }

  @Test
  void aRateBelowOneIsRefused() {
    assertThatThrownBy(() -> PacingSchedule.startingNow(0)).hasMessageContaining("not 0");
  }

  @Test
  void theSinksHistogramsMergeAndOnlyTheMeasuredWindowCounts() {
    AtomicLong now = new AtomicLong(5 * SECOND);
    LatencyMeasurement measurement = new LatencyMeasurement(10 * SECOND, 60 * SECOND, now::get);
    LatencyMeasurement.SinkRecorder first = measurement.newSinkRecorder();
    LatencyMeasurement.SinkRecorder second = measurement.newSinkRecorder();

    long origin = measurement.stamp(0); // the first record starts the warm-up
    long warmUp = origin + SECOND;
    now.set(warmUp);
    long warmUpStamp = measurement.stamp(0);
    now.set(warmUpStamp + 10_000 * MS);
    first.record(warmUpStamp); // created in the warm-up: left out
    for (int i = 1; i <= 1_000; i++) {
      // first sink: 1..1000 ms; second sink: 1001..2000 ms
      now.set(origin + 10 * SECOND + i * MS);
      long a = measurement.stamp(i == 500 ? 3 * MS : 0);
      long b = measurement.stamp(0);
      now.set(a + i * MS);
      first.record(a);
      now.set(b + (1_000 + i) * MS);
      second.record(b);
    }
    now.set(origin + 70 * SECOND); // the window's end: no longer measured
    long late = measurement.stamp(0);
    now.set(late + MS);
    second.record(late);

    LatencyMeasurement.Figures figures = measurement.figures();

    assertThat(figures.created()).isEqualTo(2_000);
    assertThat(figures.recorded()).isEqualTo(2_000);
    assertThat(figures.missing()).isZero();
    assertThat(figures.maxLagNanos()).isEqualTo(3 * MS);
    assertThat(figures.measuredNanos()).isEqualTo(60 * SECOND);
    // 3 significant digits: within 0.1 % of the exact ranks.
    assertThat(figures.percentileMs(50)).isCloseTo(1_000, within(1.0));
    assertThat(figures.percentileMs(99)).isCloseTo(1_980, within(2.0));
    assertThat(figures.percentileMs(99.9)).isCloseTo(1_998, within(2.0));
    assertThat(figures.maxMs()).isCloseTo(2_000, within(2.0));
    assertThat(figures.percentileMs(0)).isCloseTo(1, within(0.01));
  }

  @Test
  void aMeasuredRecordThatNeverArrivesCountsAsMissing() {
    AtomicLong now = new AtomicLong();
    LatencyMeasurement measurement = new LatencyMeasurement(0, SECOND, now::get);
    LatencyMeasurement.SinkRecorder sink = measurement.newSinkRecorder();
    long arrives = measurement.stamp(0);
    measurement.stamp(0); // lost on the way
    now.set(5 * MS);
    sink.record(arrives);

    LatencyMeasurement.Figures figures = measurement.figures();

    assertThat(figures.created()).isEqualTo(2);
    assertThat(figures.recorded()).isEqualTo(1);
    assertThat(figures.missing()).isEqualTo(1);
    assertThat(figures.maxMs()).isCloseTo(5, within(0.01));
  }

  @Test
  void waitingForTheWindowFailsWhenTheJobEndsFirst() {
    LatencyMeasurement measurement = new LatencyMeasurement(0, SECOND, System::nanoTime);
    Duration minute = Duration.ofMinutes(1);

    assertThatThrownBy(
            () ->
                measurement.awaitMeasured(
                    CompletableFuture.failedFuture(new IllegalStateException("task failed")),
                    minute,
                    minute))
        .hasMessageContaining("failed before it emitted a first record")
        .hasRootCauseMessage("task failed");
    assertThatThrownBy(
            () ->
                measurement.awaitMeasured(CompletableFuture.completedFuture(null), minute, minute))
        .hasMessageContaining("ended before it emitted a first record");
  }

  @Test
  void theResultLineCarriesTheLatencyFigures() {
    AtomicLong now = new AtomicLong();
    LatencyMeasurement measurement = new LatencyMeasurement(0, 2 * SECOND, now::get);
    LatencyMeasurement.SinkRecorder sink = measurement.newSinkRecorder();
    for (int i = 0; i < 100_000; i++) {
      now.set(i * 10_000L);
      long created = measurement.stamp(0);
      now.addAndGet(40 * MS);
      sink.record(created);
    }

    Result result = W7Job.result(Engine.WEIR, "aligned", measurement.figures(), List.of(15L, 10L));

    assertThat(result.records()).isEqualTo(100_000);
    assertThat(result.seconds()).isEqualTo(2.0);
    assertThat(result.recordsPerSecond()).isEqualTo(50_000);
    assertThat(result.extra())
        .containsKeys("p50Ms", "p99Ms", "p999Ms", "maxMs", "missing", "sourceLagMaxMs")
        .containsEntry("missing", "0")
        .containsEntry("checkpoints", "2")
        .containsEntry("cpP50Ms", "12.50");
    assertThat(Double.parseDouble(result.extra().get("p50Ms"))).isCloseTo(40, within(0.05));
    assertThat(Double.parseDouble(result.extra().get("maxMs"))).isCloseTo(40, within(0.05));
    assertThat(W7Job.result(Engine.FLINK, "unaligned", measurement.figures(), List.of()).extra())
        .containsEntry("p50Ms", "n/a")
        .containsEntry("cpP50Ms", "n/a");
  }

  @Test
  void theWorkloadIsRegisteredTimedWithTheSameSettingsForBothEngines() {
    assertThat(Workloads.byId("w7")).isSameAs(W7Job.WORKLOAD);
    assertThat(W7Job.WORKLOAD.timed()).isTrue();
    assertThat(W7Job.WORKLOAD.configs())
        .containsExactly(
            "aligned",
            "unaligned",
            "aligned-paced",
            "unaligned-paced",
            "aligned-5ms",
            "unaligned-5ms",
            "aligned-paced-5ms",
            "unaligned-paced-5ms");
    assertThat(W7Job.paced("unaligned-paced")).isTrue();
    assertThat(W7Job.paced("unaligned-paced-5ms")).isTrue();
    assertThat(W7Job.paced("unaligned")).isFalse();
    assertThat(W7Job.paced("aligned-5ms")).isFalse();
    assertThat(W7Job.settings("aligned-5ms", "file:///tmp/cp"))
        .as("both engines at Weir's default buffer timeout")
        .containsEntry("execution.buffer-timeout.interval", "5ms")
        .containsEntry("execution.checkpointing.unaligned.enabled", "false");
    assertThat(W7Job.settings("aligned", "file:///tmp/cp"))
        .as("each engine at its own default")
        .doesNotContainKey("execution.buffer-timeout.interval");
    assertThat(W7Job.settings("unaligned-paced", "file:///tmp/cp"))
        .containsEntry("execution.checkpointing.unaligned.enabled", "true");
    assertThat(W7Job.DEFAULT_RECORDS).isEqualTo(6_000_000L);
    assertThat(W7Job.measured(W7Job.DEFAULT_RECORDS)).isEqualTo(Duration.ofSeconds(60));
    assertThat(W7Job.measured(300_000)).isEqualTo(Duration.ofSeconds(3));
    assertThat(W7Job.settings("unaligned", "file:///tmp/cp"))
        .containsEntry("execution.checkpointing.interval", "1000ms")
        .containsEntry("execution.checkpointing.unaligned.enabled", "true")
        .containsEntry("execution.checkpointing.dir", "file:///tmp/cp")
        .containsEntry("state.backend.type", "hashmap");
    assertThat(W7Job.settings("aligned", "file:///tmp/cp"))
        .containsEntry("execution.checkpointing.unaligned.enabled", "false");
    assertThatThrownBy(() -> W7Job.settings("aligned-bt0", "x"))
        .hasMessageContaining("aligned-bt0");
  }
}
