package io.weir.cluster.rpc;

import static org.assertj.core.api.Assertions.assertThat;

import io.weir.api.CheckpointStatistics.SubtaskCheckpointStatistics;
import org.junit.jupiter.api.Test;

/** A subtask's checkpoint figures cross from a TaskManager to the JobManager whole. */
class SubtaskStatisticsMessageTest {

  @Test
  void aSubtasksFiguresAndTheChannelItWaitedOnSurviveTheWire() {
    SubtaskCheckpointStatistics measured =
        new SubtaskCheckpointStatistics("Count", 1, 40, 1_800, false, 0, 5, 30, 4_096, 1_024)
            .withFilesWritten(3)
            .withLastBarrierFrom("Source: Events (2/2)");

    assertThat(Messages.fromProto(Messages.toProto(measured))).isEqualTo(measured);
  }

  @Test
  void aSourceWaitsOnNoChannel() {
    SubtaskCheckpointStatistics source =
        new SubtaskCheckpointStatistics("Source: Events", 0, 2, 0, false, 0, 1, 3, 10, 10)
            .withFilesWritten(0);

    assertThat(Messages.fromProto(Messages.toProto(source)).lastBarrierFrom()).isNull();
  }
}
