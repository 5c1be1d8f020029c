package io.weir.runtime.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;

import io.weir.api.CheckpointStatistics;
import io.weir.api.CheckpointStatistics.Status;
import io.weir.api.CheckpointStatistics.SubtaskCheckpointStatistics;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class CheckpointStatsTrackerTest {

  private final CheckpointStatsTracker tracker = new CheckpointStatsTracker();

  @Test
  void aCheckpointIsOneRecordThatMovesFromInProgressToCompleted() {
    List<SubtaskCheckpointStatistics> acks = new ArrayList<>();
    tracker.recordInProgress(7, false, 1_000, acks);

    CheckpointStatistics inProgress = tracker.statistics().get(0);
    assertThat(inProgress.status()).isEqualTo(Status.IN_PROGRESS);
    assertThat(inProgress.endToEndDurationMillis()).isEqualTo(-1);
    assertThat(inProgress.externalPath()).isNull();

    acks.add(subtask(false));
    tracker.recordCompleted(7, false, 1_000, 1_250, acks, "file:///chk-7");

    assertThat(tracker.statistics())
        .containsExactly(
            new CheckpointStatistics(
                7, Status.COMPLETED, 1_000, 250, false, acks, "file:///chk-7"));
  }

  @Test
  void aFailedCheckpointHasItsDurationAndNoPath() {
    tracker.recordInProgress(3, true, 500, List.of());
    tracker.recordFailed(3, true, 500, 900, List.of(), "TIMEOUT: expired after 400 ms");

    CheckpointStatistics failed = tracker.statistics().get(0);
    assertThat(failed.status()).isEqualTo(Status.FAILED);
    assertThat(failed.endToEndDurationMillis()).isEqualTo(400);
    assertThat(failed.externalPath()).isNull();
    assertThat(failed.savepoint()).isTrue();
    assertThat(failed.failureMessage()).isEqualTo("TIMEOUT: expired after 400 ms");
  }

  @Test
  void oneUnalignedSubtaskMakesTheCheckpointUnaligned() {
    tracker.recordInProgress(1, false, 0, List.of(subtask(false), subtask(true)));

    assertThat(tracker.statistics().get(0).unaligned()).isTrue();
  }

  @Test
  void keepsTheNewestCheckpointsOldestFirst() {
    int recorded = CheckpointStatsTracker.STATISTICS_KEPT + 3;
    for (long id = 1; id <= recorded; id++) {
      tracker.recordInProgress(id, false, id, List.of());
      tracker.recordCompleted(id, false, id, id + 1, List.of(), null);
    }

    List<CheckpointStatistics> kept = tracker.statistics();
    assertThat(kept).hasSize(CheckpointStatsTracker.STATISTICS_KEPT);
    assertThat(kept.get(0).checkpointId()).isEqualTo(4);
    assertThat(kept.get(kept.size() - 1).checkpointId()).isEqualTo(recorded);
  }

  private static SubtaskCheckpointStatistics subtask(boolean unaligned) {
    return new SubtaskCheckpointStatistics("Map", 0, 1, 2, unaligned, 0, 3, 4, 10, 10);
  }
}
