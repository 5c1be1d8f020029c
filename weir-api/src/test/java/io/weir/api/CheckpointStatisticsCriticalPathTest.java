package io.weir.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.weir.api.CheckpointStatistics.CriticalPath;
import io.weir.api.CheckpointStatistics.Phase;
import io.weir.api.CheckpointStatistics.Status;
import io.weir.api.CheckpointStatistics.SubtaskCheckpointStatistics;
import java.util.List;
import org.junit.jupiter.api.Test;

class CheckpointStatisticsCriticalPathTest {

  private static final long TRIGGER = 10_000;

  @Test
  void theLastAcknowledgementsLongestPhaseIsTheCriticalPath() {
    CheckpointStatistics c =
        completed(
            2_100,
            subtask("Source", 0, 0, 5, 0, 1, 3, TRIGGER + 20),
            subtask("Count", 1, 0, 40, 300, 2, 10, TRIGGER + 400),
            subtask("Count", 1, 1, 60, 1_800, 5, 30, TRIGGER + 2_000)
                .withLastBarrierFrom("Source (1/2)"),
            subtask("Count", 1, 2, 10, 200, 5, 30, TRIGGER + 300));

    CriticalPath path = c.criticalPath();

    assertThat(path.vertexIndex()).isEqualTo(1);
    assertThat(path.subtaskIndex()).isEqualTo(1);
    assertThat(path.phase()).isEqualTo(Phase.ALIGNMENT);
    assertThat(path.durationMillis()).isEqualTo(1_800);
    assertThat(path.description())
        .isEqualTo("Count (2/3): alignment 1.8 s, waiting on the channel from Source (1/2)");
    assertThat(path.advice()).contains("execution.checkpointing.unaligned.enabled");
  }

  @Test
  void whatNoPhaseExplainsIsTheAcknowledgementsWay() {
    CheckpointStatistics c = completed(900, subtask("Sink", 2, 0, 5, 10, 5, 20, TRIGGER + 880));

    assertThat(c.criticalPath().phase()).isEqualTo(Phase.ACKNOWLEDGEMENT);
    assertThat(c.criticalPath().durationMillis()).isEqualTo(840);
  }

  @Test
  void aSlowMetadataWriteIsTheFinalizePhase() {
    CheckpointStatistics c = completed(5_000, subtask("Sink", 2, 0, 5, 10, 5, 20, TRIGGER + 50));

    assertThat(c.criticalPath().phase()).isEqualTo(Phase.FINALIZE);
    assertThat(c.criticalPath().durationMillis()).isEqualTo(4_950);
    assertThat(c.criticalPath().description())
        .isEqualTo(
            "the coordinator writing the metadata took 5.0 s after the last acknowledgement, from"
                + " Sink (1/1)");
    assertThat(c.criticalPath().advice()).contains("execution.checkpointing.dir");
  }

  @Test
  void aSinkCommitLongerThanEveryPhaseIsTheCriticalPath() {
    CheckpointStatistics c =
        completed(
            120,
            subtask("Source", 0, 0, 5, 0, 1, 3, TRIGGER + 20),
            subtask("Sink", 1, 0, 5, 10, 5, 20, TRIGGER + 100)
                .withCommit(new CheckpointStatistics.SinkCommit(TRIGGER + 125, 2_300, null)),
            subtask("Sink", 1, 1, 5, 10, 5, 20, TRIGGER + 90)
                .withCommit(
                    new CheckpointStatistics.SinkCommit(
                        TRIGGER + 125, 2_500, "ProducerFencedException: fenced")));

    CriticalPath path = c.criticalPath();

    assertThat(path.phase()).isEqualTo(Phase.COMMIT);
    assertThat(path.subtaskIndex()).isEqualTo(1);
    assertThat(path.durationMillis()).isEqualTo(2_500);
    assertThat(path.description())
        .isEqualTo(
            "Sink (2/2): sink commit 2.5 s after the checkpoint completed, and it failed:"
                + " ProducerFencedException: fenced");
    assertThat(path.advice()).startsWith("a slow sink commit");
  }

  @Test
  void aQuickSinkCommitLeavesTheCriticalPathBeforeIt() {
    CheckpointStatistics c =
        completed(
            2_100,
            subtask("Sink", 1, 0, 60, 1_800, 5, 30, TRIGGER + 2_000)
                .withCommit(new CheckpointStatistics.SinkCommit(TRIGGER + 2_101, 40, null)));

    assertThat(c.criticalPath().phase()).isEqualTo(Phase.ALIGNMENT);
    // Without the channel (history written before Weir kept it), the phase alone.
    assertThat(c.criticalPath().description()).isEqualTo("Sink (1/1): alignment 1.8 s");
  }

  @Test
  void withoutAnAcknowledgementThereIsNone() {
    CheckpointStatistics c =
        new CheckpointStatistics(
            3,
            Status.IN_PROGRESS,
            TRIGGER,
            -1,
            false,
            List.of(new SubtaskCheckpointStatistics("Map", 0, 1, 2, false, 0, 3, 4, 5, 6)));

    assertThat(c.criticalPath()).isNull();
  }

  @Test
  void anAcknowledgementKnowsItsEndToEndDuration() {
    SubtaskCheckpointStatistics s = subtask("Map", 0, 0, 1, 1, 1, 1, TRIGGER + 70);

    assertThat(s.endToEndDurationMillis(TRIGGER)).isEqualTo(70);
    assertThat(s.received(0, -1).endToEndDurationMillis(TRIGGER)).isEqualTo(-1);
  }

  private static CheckpointStatistics completed(
      long duration, SubtaskCheckpointStatistics... subtasks) {
    return new CheckpointStatistics(
        7, Status.COMPLETED, TRIGGER, duration, false, List.of(subtasks), "file:///chk-7");
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
