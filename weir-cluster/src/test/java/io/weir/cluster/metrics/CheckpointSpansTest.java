package io.weir.cluster.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.opentelemetry.proto.trace.v1.Span;
import io.weir.api.CheckpointStatistics;
import io.weir.api.CheckpointStatistics.Status;
import io.weir.api.CheckpointStatistics.SubtaskCheckpointStatistics;
import io.weir.cluster.ClusterOptions;
import io.weir.cluster.testing.OtlpCollector;
import io.weir.runtime.metrics.TaskMetricsReporter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Checkpoint spans sent over OTLP/HTTP to a collector that decodes them as a real one would. */
class CheckpointSpansTest {

  private OtlpCollector collector;

  @BeforeEach
  void startCollector() throws Exception {
    collector = OtlpCollector.start();
  }

  @AfterEach
  void stopCollector() {
    collector.close();
  }

  @Test
  void eachEndedCheckpointIsOneTraceWithALanePerSubtaskAndItsPhases() throws Exception {
    long now = System.currentTimeMillis();
    CheckpointStatistics completed =
        new CheckpointStatistics(
            7,
            Status.COMPLETED,
            now + 1_000,
            400,
            false,
            List.of(
                subtask("Source", 0, 0, 2, 0, 1, 5, now + 1_010),
                subtask("Count", 1, 0, 10, 300, 4, 20, now + 1_340),
                subtask("Count", 1, 1, 10, 30, 4, 20, now + 1_080)),
            "file:///cp/chk-7");
    CheckpointStatistics failed =
        new CheckpointStatistics(
            8,
            Status.FAILED,
            now + 2_000,
            50,
            false,
            List.of(),
            null,
            true,
            "DECLINED: declined by TaskKey[vertex=1, subtask=0]: disk full");
    CheckpointStatistics running =
        new CheckpointStatistics(9, Status.IN_PROGRESS, now + 3_000, -1, false, List.of());
    CheckpointStatistics takenUp =
        new CheckpointStatistics(3, Status.COMPLETED, now - 60_000, 10, false, List.of());
    List<CheckpointStatistics> history = new ArrayList<>(List.of(takenUp, completed, failed));
    history.add(running);

    CheckpointSpans spans =
        CheckpointSpans.start(
            ClusterOptions.load(
                null,
                Map.of(
                    "traces.reporter.otel.exporter.endpoint",
                    collector.endpoint(),
                    "traces.reporter.otel.service.name",
                    "weir-test")));
    try {
      TaskMetricsReporter.Registration registration =
          spans.registerJob("abc123", "count-job", () -> List.copyOf(history));
      spans.flush();
      spans.flush(); // a second look sends nothing twice
      registration.close();
    } finally {
      spans.close();
    }

    List<Span> received = collector.spans();
    Map<String, List<Span>> byName =
        received.stream().collect(Collectors.groupingBy(Span::getName));
    assertThat(collector.serviceNames()).contains("weir-test");
    assertThat(byName.get("Checkpoint"))
        .as("one, the completed one: %s", byName.keySet())
        .hasSize(1);
    assertThat(byName.get("Savepoint")).as("the failed savepoint").hasSize(1);
    Span root = byName.get("Checkpoint").get(0);
    assertThat(OtlpCollector.attributes(root))
        .containsEntry("jobId", "abc123")
        .containsEntry("checkpointId", "7")
        .containsEntry("checkpointStatus", "COMPLETED")
        .containsEntry("fullSize", "300")
        .containsEntry("criticalPhase", "alignment")
        .containsEntry("criticalPath", "Count (1/2): alignment 300 ms");
    assertThat(millis(root.getStartTimeUnixNano())).isEqualTo(now + 1_000);
    assertThat(millis(root.getEndTimeUnixNano())).isEqualTo(now + 1_400);
    List<Span> lanes =
        received.stream().filter(s -> s.getParentSpanId().equals(root.getSpanId())).toList();
    assertThat(lanes)
        .extracting(Span::getName)
        .containsExactlyInAnyOrder("Source (1/1)", "Count (1/2)", "Count (2/2)");
    Span critical =
        lanes.stream().filter(s -> s.getName().equals("Count (1/2)")).findFirst().orElseThrow();
    assertThat(OtlpCollector.attributes(critical)).containsEntry("criticalPath", "true");
    assertThat(millis(critical.getEndTimeUnixNano())).isEqualTo(now + 1_340);
    List<Span> phases =
        received.stream().filter(s -> s.getParentSpanId().equals(critical.getSpanId())).toList();
    assertThat(phases)
        .extracting(Span::getName)
        .containsExactlyInAnyOrder("start delay", "alignment", "sync", "async");
    Span alignment =
        phases.stream().filter(s -> s.getName().equals("alignment")).findFirst().orElseThrow();
    assertThat(millis(alignment.getStartTimeUnixNano())).isEqualTo(now + 1_010);
    assertThat(millis(alignment.getEndTimeUnixNano())).isEqualTo(now + 1_310);
    assertThat(OtlpCollector.attributes(alignment)).containsEntry("criticalPath", "true");
    Span savepoint = byName.get("Savepoint").get(0);
    assertThat(savepoint.getStatus().getMessage()).contains("disk full");
    assertThat(received)
        .as("nothing of the in-progress one, nor of the history taken up from storage")
        .noneMatch(
            s -> OtlpCollector.attributes(s).getOrDefault("checkpointId", "").matches("3|9"));
  }

  @Test
  void withoutAnEndpointNothingIsSentAndAFlinkGrpcSettingIsRefusedNamingTheKey() {
    assertThat(CheckpointSpans.start(ClusterOptions.load(null, Map.of())).enabled()).isFalse();
    assertThatThrownBy(
            () ->
                CheckpointSpans.start(
                    ClusterOptions.load(
                        null,
                        Map.of(
                            "traces.reporter.otel.exporter.endpoint",
                            "http://127.0.0.1:4317",
                            "traces.reporter.otel.exporter.protocol",
                            "gRPC"))))
        .hasMessageContaining("traces.reporter.otel.exporter.protocol is 'gRPC'")
        .hasMessageContaining("set it to HTTP");
    assertThatThrownBy(
            () ->
                CheckpointSpans.start(
                    ClusterOptions.load(
                        null, Map.of("traces.reporter.otel.exporter.endpoint", "127.0.0.1:4318"))))
        .hasMessageContaining("traces.reporter.otel.exporter.endpoint is '127.0.0.1:4318'");
    assertThat(CheckpointSpans.tracesUrl("http://collector:4318"))
        .isEqualTo("http://collector:4318/v1/traces");
    assertThat(CheckpointSpans.tracesUrl("http://collector:4318/custom/traces"))
        .isEqualTo("http://collector:4318/custom/traces");
  }

  private static long millis(long nanos) {
    return TimeUnit.NANOSECONDS.toMillis(nanos);
  }

  private static SubtaskCheckpointStatistics subtask(
      String task,
      int vertex,
      int index,
      long startDelay,
      long alignment,
      long sync,
      long async,
      long ack) {
    return new SubtaskCheckpointStatistics(
            task, index, startDelay, alignment, false, 0, sync, async, 100, 100)
        .received(vertex, ack);
  }
}
