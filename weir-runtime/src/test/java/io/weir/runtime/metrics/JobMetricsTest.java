package io.weir.runtime.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class JobMetricsTest {

  @Test
  void asMapNamesEveryValueWithFlinksNameInOrder() {
    JobMetrics metrics = new JobMetrics(1, 2, 3, 4, 5, 6, 7, 8, 9);

    assertThat(metrics.asMap())
        .containsExactly(
            java.util.Map.entry("lastCheckpointDuration", 1L),
            java.util.Map.entry("lastCheckpointSize", 2L),
            java.util.Map.entry("lastCheckpointFullSize", 3L),
            java.util.Map.entry("numberOfCompletedCheckpoints", 4L),
            java.util.Map.entry("numberOfFailedCheckpoints", 5L),
            java.util.Map.entry("numberOfInProgressCheckpoints", 6L),
            java.util.Map.entry("lastCheckpointRestoreTimestamp", 7L),
            java.util.Map.entry("numRestarts", 8L),
            java.util.Map.entry("uptime", 9L));
    assertThat(metrics.asMap().keySet()).containsExactlyElementsOf(JobMetrics.NAMES);
  }
}
