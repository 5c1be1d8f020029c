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

  @Test
  void countsCheckpointsInProgressCompletedAndFailedOnceEach() {
    tracker.recordInProgress(1, false, 0, List.of());
    tracker.recordInProgress(2, false, 0, List.of());
    tracker.recordInProgress(2, false, 0, List.of(subtask(false)));
    tracker.recordInProgress(3, false, 0, List.of());
    assertThat(tracker.counts()).isEqualTo(new CheckpointStatsCounts(3, 0, 0));

    tracker.recordCompleted(1, false, 0, 10, List.of(), null);
    tracker.recordFailed(2, false, 0, 20, List.of(), null);
    tracker.recordCompleted(1, false, 0, 10, List.of(), null);

    assertThat(tracker.counts()).isEqualTo(new CheckpointStatsCounts(1, 1, 1));
  }

  @Test
  void theLatestCompletedIsTheNewestIdWhateverTheOrderTheyEnd() {
    assertThat(tracker.latestCompleted()).isNull();
    tracker.recordInProgress(4, false, 0, List.of());
    tracker.recordInProgress(5, false, 100, List.of());
    tracker.recordCompleted(5, false, 100, 150, List.of(subtask(false)), "file:///chk-5");
    tracker.recordCompleted(4, false, 0, 200, List.of(), "file:///chk-4");

    assertThat(tracker.latestCompleted().checkpointId()).isEqualTo(5);
    assertThat(tracker.latestCompleted().endToEndDurationMillis()).isEqualTo(50);
    assertThat(tracker.latestCompleted().stateSizeBytes()).isEqualTo(10);
  }

  @Test
  void theCountsOutliveTheHistory() {
    int recorded = CheckpointStatsTracker.STATISTICS_KEPT + 3;
    tracker.recordInProgress(0, false, 0, List.of());
    for (long id = 1; id <= recorded; id++) {
      tracker.recordInProgress(id, false, id, List.of());
      tracker.recordCompleted(id, false, id, id + 1, List.of(), null);
    }
    tracker.recordFailed(0, false, 0, 1, List.of(), null);

    assertThat(tracker.counts()).isEqualTo(new CheckpointStatsCounts(0, recorded, 1));
  }

  private static SubtaskCheckpointStatistics subtask(boolean unaligned) {
    return new SubtaskCheckpointStatistics("Map", 0, 1, 2, unaligned, 0, 3, 4, 10, 10);
  }
}
