package io.weir.runtime.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;

import io.weir.api.CheckpointStatistics;
import io.weir.api.CheckpointStatistics.Status;
import io.weir.api.CheckpointStatistics.SubtaskCheckpointStatistics;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class CheckpointStatsTrackerTest {

  private final CheckpointStatsTracker tracker = new CheckpointStatsTracker(KEPT);

  private static final int KEPT = 20;

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
    int recorded = KEPT + 3;
    for (long id = 1; id <= recorded; id++) {
      tracker.recordInProgress(id, false, id, List.of());
      tracker.recordCompleted(id, false, id, id + 1, List.of(), null);
    }

    List<CheckpointStatistics> kept = tracker.statistics();
    assertThat(kept).hasSize(KEPT);
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
    int recorded = KEPT + 3;
    tracker.recordInProgress(0, false, 0, List.of());
    for (long id = 1; id <= recorded; id++) {
      tracker.recordInProgress(id, false, id, List.of());
      tracker.recordCompleted(id, false, id, id + 1, List.of(), null);
    }
    tracker.recordFailed(0, false, 0, 1, List.of(), null);

    assertThat(tracker.counts()).isEqualTo(new CheckpointStatsCounts(0, recorded, 1));
  }

  @Test
  void aRestoredHistoryComesFirstAndItsCountsContinue() {
    tracker.recordInProgress(11, false, 1_100, List.of());
    tracker.recordCompleted(11, false, 1_100, 1_150, List.of(subtask(false)), "file:///chk-11");
    List<CheckpointStatistics> earlier = new ArrayList<>();
    for (long id = 1; id <= 10; id++) {
      earlier.add(
          new CheckpointStatistics(
              id, Status.COMPLETED, id * 100, 20, false, List.of(), "file:///chk-" + id));
    }
    earlier.add(
        new CheckpointStatistics(11, Status.FAILED, 1_100, 5, false, List.of(), null, false, "x"));

    tracker.restore(new CheckpointHistory(9, 1, earlier));

    List<CheckpointStatistics> kept = tracker.statistics();
    assertThat(kept).hasSize(11);
    assertThat(kept.get(0).checkpointId()).isEqualTo(1);
    // A checkpoint this coordinator knows keeps its own record.
    assertThat(kept.get(10).status()).isEqualTo(Status.COMPLETED);
    assertThat(tracker.counts()).isEqualTo(new CheckpointStatsCounts(0, 10, 1));
    assertThat(tracker.latestCompleted().checkpointId()).isEqualTo(11);
    assertThat(tracker.snapshot().checkpoints()).hasSize(11);
  }

  @Test
  void aRestoredHistoryLongerThanTheLimitKeepsTheNewest() {
    List<CheckpointStatistics> earlier = new ArrayList<>();
    for (long id = 1; id <= KEPT + 5; id++) {
      earlier.add(new CheckpointStatistics(id, Status.COMPLETED, id, 1, false, List.of()));
    }

    tracker.restore(new CheckpointHistory(KEPT + 5, 0, earlier));

    assertThat(tracker.statistics()).hasSize(KEPT);
    assertThat(tracker.statistics().get(0).checkpointId()).isEqualTo(6);
    assertThat(tracker.latestCompleted().checkpointId()).isEqualTo(KEPT + 5);
  }

  @Test
  void aHistoryOfNoneIsRefused() {
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> new CheckpointStatsTracker(0))
        .hasMessageContaining("web.checkpoints.history");
  }

  private static SubtaskCheckpointStatistics subtask(boolean unaligned) {
    return new SubtaskCheckpointStatistics("Map", 0, 1, 2, unaligned, 0, 3, 4, 10, 10);
  }
}
