package io.weir.runtime.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.weir.api.CheckpointStatistics;
import io.weir.api.CheckpointStatistics.SinkCommit;
import io.weir.api.CheckpointStatistics.Status;
import io.weir.api.CheckpointStatistics.SubtaskCheckpointStatistics;
import io.weir.api.config.Configuration;
import io.weir.runtime.checkpoint.CheckpointHistory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CheckpointHistoryFormatTest {

  @TempDir Path dir;

  @Test
  void theNewestCheckpointsKeepEverySubtaskOlderOnesOnePerVertex() throws Exception {
    List<CheckpointStatistics> checkpoints = new ArrayList<>();
    int total = CheckpointHistoryFormat.FULL_DETAIL + 3;
    for (long id = 1; id <= total; id++) {
      checkpoints.add(checkpoint(id));
    }
    CheckpointHistory history = new CheckpointHistory(total, 2, checkpoints);

    CheckpointHistory read =
        CheckpointHistoryFormat.deserialize(CheckpointHistoryFormat.serialize(history));

    assertThat(read.completed()).isEqualTo(total);
    assertThat(read.failed()).isEqualTo(2);
    assertThat(read.checkpoints()).hasSize(total);
    assertThat(read.checkpoints().subList(3, total)).isEqualTo(checkpoints.subList(3, total));
    CheckpointStatistics compacted = read.checkpoints().get(0);
    CheckpointStatistics original = checkpoints.get(0);
    assertThat(compacted.subtasks()).hasSize(2);
    assertThat(compacted.subtasks()).allMatch(s -> s.subtaskIndex() == -1);
    assertThat(compacted.stateSizeBytes()).isEqualTo(original.stateSizeBytes());
    assertThat(compacted.checkpointedSizeBytes()).isEqualTo(original.checkpointedSizeBytes());
    assertThat(compacted.maxAlignmentDurationMillis())
        .isEqualTo(original.maxAlignmentDurationMillis());
    assertThat(compacted.failureMessage()).isEqualTo(original.failureMessage());
    assertThat(compacted.criticalPath().vertexIndex())
        .isEqualTo(original.criticalPath().vertexIndex());
    // Files summed per vertex; the longest commit, with the failure one subtask's had.
    assertThat(compacted.subtasks().get(0).filesWritten()).isEqualTo(0 + 1 + 2);
    assertThat(compacted.subtasks().get(1).filesWritten()).isEqualTo(6);
    // The channel each vertex waited on longest: the Sink's last subtask aligned longest.
    assertThat(compacted.subtasks().get(0).lastBarrierFrom()).isNull();
    assertThat(compacted.subtasks().get(1).lastBarrierFrom()).isEqualTo("Source (3/3)");
    assertThat(read.checkpoints().get(total - 1).subtasks().get(5).lastBarrierFrom())
        .isEqualTo("Source (3/3)");
    assertThat(compacted.subtasks().get(0).commit()).isNull();
    assertThat(compacted.subtasks().get(1).commit())
        .isEqualTo(
            new SinkCommit(
                original.triggerTimestamp() + 200, 32, "Operator 'Sink' failed: fenced"));
  }

  @Test
  void aWideJobKeepsEverySubtaskOfFewerCheckpointsButAlwaysOfTheNewest() {
    List<CheckpointStatistics> wide = new ArrayList<>();
    for (long id = 1; id <= 5; id++) {
      wide.add(checkpoint(id, 350)); // two vertices: 700 subtasks each
    }
    List<CheckpointStatistics> widest = List.of(checkpoint(1, 5), checkpoint(2, 1_250));

    assertThat(CheckpointHistoryFormat.withFullDetail(wide)).isEqualTo(2);
    assertThat(CheckpointHistoryFormat.withFullDetail(widest)).isEqualTo(1);
    assertThat(CheckpointHistoryFormat.withFullDetail(List.of())).isZero();
  }

  @Test
  void itLiesBesideTheMetadataAndAMissingOneIsAnEmptyHistory() throws Exception {
    Path chk = Files.createDirectories(dir.resolve("chk-4"));
    String pointer = chk.toUri().toString();
    Configuration conf = new Configuration();
    assertThat(CheckpointHistoryFormat.read(pointer, conf)).isEqualTo(CheckpointHistory.EMPTY);

    CheckpointHistory history = new CheckpointHistory(1, 0, List.of(checkpoint(4)));
    CheckpointHistoryFormat.write(pointer, history, conf);

    assertThat(chk.resolve(CheckpointHistoryFormat.FILE)).exists();
    assertThat(CheckpointHistoryFormat.read(pointer, conf)).isEqualTo(history);
  }

  @Test
  void aDamagedFileIsNamedInTheError() throws Exception {
    Path chk = Files.createDirectories(dir.resolve("chk-9"));
    byte[] bytes =
        CheckpointHistoryFormat.serialize(new CheckpointHistory(1, 0, List.of(checkpoint(9))));
    Files.write(chk.resolve(CheckpointHistoryFormat.FILE), Arrays.copyOf(bytes, bytes.length / 2));

    assertThatThrownBy(
            () -> CheckpointHistoryFormat.read(chk.toUri().toString(), new Configuration()))
        .hasMessageContaining(chk.resolve(CheckpointHistoryFormat.FILE).toString())
        .hasMessageContaining("truncated");
    Files.write(chk.resolve(CheckpointHistoryFormat.FILE), new byte[] {1, 2, 3, 4, 5, 6, 7, 8});
    assertThatThrownBy(
            () -> CheckpointHistoryFormat.read(chk.toUri().toString(), new Configuration()))
        .hasMessageContaining("not a checkpoint history file");
  }

  private static CheckpointStatistics checkpoint(long id) {
    return checkpoint(id, 3);
  }

  /** Checkpoint {@code id} of a job of two vertices, each at {@code parallelism}. */
  private static CheckpointStatistics checkpoint(long id, int parallelism) {
    long trigger = id * 1_000;
    List<SubtaskCheckpointStatistics> subtasks = new ArrayList<>();
    for (int i = 0; i < parallelism; i++) {
      subtasks.add(
          new SubtaskCheckpointStatistics("Source", i, 2, 0, false, 0, 1, 3 + i, 10, 10)
              .received(0, trigger + 10 + i)
              .withFilesWritten(i));
      subtasks.add(
          new SubtaskCheckpointStatistics("Sink", i, 5, 20 * i, i == 2, 7, 2, 8, 100, 40)
              .received(1, trigger + 50 + 20 * i)
              .withFilesWritten(2)
              .withLastBarrierFrom(i == 0 ? null : "Source (" + (i + 1) + "/" + parallelism + ")")
              .withCommit(
                  new SinkCommit(
                      trigger + 200 + i,
                      30 + i,
                      i == 1 ? "Operator 'Sink' failed: fenced" : null)));
    }
    return new CheckpointStatistics(
        id,
        id % 4 == 0 ? Status.FAILED : Status.COMPLETED,
        trigger,
        120,
        true,
        subtasks,
        id % 4 == 0 ? null : "file:///chk-" + id,
        id % 5 == 0,
        id % 4 == 0 ? "TIMEOUT: not complete after 100 ms" : null);
  }
}
