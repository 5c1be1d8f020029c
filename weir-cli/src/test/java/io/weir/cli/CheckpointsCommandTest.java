package io.weir.cli;

import static io.weir.cli.CheckpointFixture.Backend.HEAP;
import static io.weir.cli.CheckpointFixture.Backend.ROCKSDB_INCREMENTAL;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.weir.api.CheckpointStatistics;
import io.weir.api.CheckpointStatistics.SubtaskCheckpointStatistics;
import io.weir.api.config.Configuration;
import io.weir.cli.CheckpointFixture.Retained;
import io.weir.runtime.checkpoint.CheckpointHistory;
import io.weir.runtime.storage.CheckpointHistoryFormat;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** {@code weir checkpoints} on the checkpoint directories of real jobs. */
@Timeout(120)
class CheckpointsCommandTest {

  private static final Pattern COLUMNS = Pattern.compile(" {2,}");
  private static final Pattern SPACE = Pattern.compile(" ");

  @TempDir Path dir;

  @Test
  void listsTheCompletedCheckpointsOfAJobAsATable() throws Exception {
    Retained heap = CheckpointFixture.shared(HEAP);

    WeirProcess.Result result = WeirProcess.run(dir, "checkpoints", heap.jobDir().toString());

    assertThat(result.exitCode()).as(result.toString()).isZero();
    List<String> lines = result.out().lines().toList();
    assertThat(lines.get(0))
        .matches("ID +TRIGGERED \\(UTC\\) +STATE SIZE +UPLOADED +FILES +UNALIGNED +VERIFIES");
    assertThat(lines.get(1))
        .matches(
            heap.checkpointId()
                + " +\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d\\.\\d{3} +[0-9.]+ KiB +[0-9.]+ KiB"
                + " +4 +unknown +yes");
  }

  @Test
  void anIncrementalCheckpointUploadedLessThanItHoldsAndADamagedOneDoesNotVerify()
      throws Exception {
    Retained copy = CheckpointFixture.copyOf(ROCKSDB_INCREMENTAL, dir);
    Path oldShared =
        VerifyCommandTest.sharedFiles(copy.jobDir()).stream()
            .filter(p -> !p.getFileName().toString().startsWith(copy.checkpointId() + "-"))
            .findFirst()
            .orElseThrow(() -> new AssertionError("no shared file of an earlier checkpoint"));

    Cli.Result intact = Cli.run("checkpoints", copy.jobDir().toString());
    Files.delete(oldShared);
    Cli.Result damaged = Cli.run("checkpoints", copy.jobDir().toString());

    assertThat(intact.exitCode()).as(intact.toString()).isZero();
    String[] row = COLUMNS.split(intact.out().lines().toList().get(1));
    assertThat(row[0]).isEqualTo(Long.toString(copy.checkpointId()));
    assertThat(kib(row[3]))
        .as("uploaded: without the SST files of earlier checkpoints")
        .isLessThan(kib(row[2]));
    assertThat(row[6]).isEqualTo("yes");
    assertThat(damaged.exitCode()).as(damaged.toString()).isZero();
    assertThat(damaged.out().lines().toList().get(1)).endsWith("no");
    assertThat(damaged.out()).contains("shared/" + oldShared.getFileName()).contains("is missing");
  }

  @Test
  void theTimelineShowsTheHistoryKeptBesideTheNewestCheckpoint() throws Exception {
    Retained heap = CheckpointFixture.shared(HEAP);
    Path history = heap.checkpointDir().resolve(CheckpointHistoryFormat.FILE);
    await().atMost(Duration.ofSeconds(30)).until(() -> Files.exists(history));

    // The retained checkpoint's timeline by its id: the history may also hold a later checkpoint
    // that the fixture's cancel aborted, which is the newest then.
    Cli.Result result =
        Cli.run("checkpoints", heap.jobDir().toString(), "--timeline=" + heap.checkpointId());
    Cli.Result unknown = Cli.run("checkpoints", heap.jobDir().toString(), "--timeline=999999");

    assertThat(result.exitCode()).as(result.toString()).isZero();
    List<String> lines = result.out().lines().toList();
    String name = heap.checkpointDir().getFileName().toString();
    assertThat(lines.get(0)).startsWith("History kept beside " + name + ": ");
    assertThat(lines.get(1))
        .matches(
            "ID +KIND +STATUS +TRIGGERED \\(UTC\\) +DURATION +STATE SIZE +UPLOADED +CRITICAL"
                + " PATH");
    assertThat(lines)
        .anyMatch(l -> l.matches(heap.checkpointId() + " +checkpoint +COMPLETED .*"))
        .contains(
            "Checkpoint "
                + heap.checkpointId()
                + ", completed in "
                + lines.stream()
                    .filter(l -> l.startsWith(heap.checkpointId() + " "))
                    .findFirst()
                    .map(l -> COLUMNS.split(l)[4].replace(" ms", ""))
                    .orElseThrow()
                + " ms. Times in ms; each phase starts where the one before it ended, from the"
                + " trigger.");
    int header = lines.indexOf(lines.stream().filter(l -> l.startsWith("TASK ")).findFirst().get());
    List<String> lanes = lines.subList(header + 1, lines.size());
    // Every subtask of both vertices has its lane, acknowledged some time after the trigger.
    long laneCount =
        lanes.stream().filter(l -> l.matches(".+ +[01] +\\d+ +\\d+ +\\d+ +\\d+ +\\d+ .*")).count();
    assertThat(laneCount)
        .isBetween((long) CheckpointFixture.PARALLELISM, 2L * CheckpointFixture.PARALLELISM);
    assertThat(lines).anyMatch(l -> l.startsWith("Critical path: "));
    assertThat(lines).anyMatch(l -> l.startsWith("What would help: "));
    assertThat(unknown.exitCode()).isNotZero();
    assertThat(unknown.err())
        .contains("Checkpoint 999999 is not in the history kept beside " + name);
  }

  @Test
  void theTimelineShowsEachSubtasksFilesAndTheSinksCommitAfterTheCompletion() throws Exception {
    Retained heap = CheckpointFixture.shared(HEAP);
    Path historyFile = heap.checkpointDir().resolve(CheckpointHistoryFormat.FILE);
    await().atMost(Duration.ofSeconds(30)).until(() -> Files.exists(historyFile));
    CheckpointHistory history =
        CheckpointHistoryFormat.read(heap.checkpointDir().toUri().toString(), new Configuration());

    // Read back from storage: the newest checkpoint's files, as `weir checkpoints` counts them
    // (every piece of state in a file of its own: each subtask's splits or keyed state).
    // The retained one: a later checkpoint that the fixture's cancel aborted may follow it.
    CheckpointStatistics newest =
        history.checkpoints().stream()
            .filter(c -> c.checkpointId() == heap.checkpointId())
            .findFirst()
            .orElseThrow();
    assertThat(newest.subtasks()).allMatch(t -> t.filesWritten() >= 1, "a file per subtask");
    assertThat(newest.subtasks().stream().mapToInt(t -> t.filesWritten()).sum()).isEqualTo(4);
    // The sink commits after a checkpoint completed: reported late, kept in the history all the
    // same, on the sink's subtasks only.
    CheckpointStatistics committed =
        history.checkpoints().stream()
            .filter(
                c ->
                    c.status() == CheckpointStatistics.Status.COMPLETED
                        && c.subtasks().stream()
                            .filter(t -> t.taskName().endsWith("sink"))
                            .allMatch(t -> t.subtaskIndex() >= 0 && t.commit() != null))
            .findFirst()
            .orElseThrow(() -> new AssertionError("no checkpoint with the sinks' commits"));
    for (SubtaskCheckpointStatistics t : committed.subtasks()) {
      if (t.taskName().endsWith("sink")) {
        assertThat(t.commit().failure()).isNull();
        assertThat(t.commit().durationMillis()).isNotNegative();
        assertThat(t.commit().notifiedTimestamp())
            .as("notified after the completion")
            .isGreaterThanOrEqualTo(
                committed.triggerTimestamp() + committed.endToEndDurationMillis());
      } else {
        assertThat(t.commit()).as("a source commits nothing").isNull();
      }
    }

    Cli.Result result =
        Cli.run("checkpoints", heap.jobDir().toString(), "--timeline=" + committed.checkpointId());

    assertThat(result.exitCode()).as(result.toString()).isZero();
    List<String> lines = result.out().lines().toList();
    assertThat(lines)
        .anyMatch(
            l ->
                l.matches(
                    "TASK +SUBTASK +START DELAY +ALIGNMENT +SYNC +ASYNC +ACKNOWLEDGED AT"
                        + " +IN-FLIGHT +STATE SIZE +UPLOADED +FILES +COMMIT AT +COMMIT"));
    // A sink's lane ends with its files, when the completion reached it and its commit's length.
    assertThat(lines.stream().filter(l -> l.startsWith("counter -> sink ")))
        .hasSize(CheckpointFixture.PARALLELISM)
        .allMatch(l -> l.matches(".* (B|KiB|MiB) +\\d+ +\\d+ +\\d+$"), "files, commit at, commit");
    assertThat(lines.stream().filter(l -> l.startsWith("numbers ")))
        .allMatch(l -> l.matches(".* +\\d+ +- +-$"), "a source's lane has no commit");
    assertThat(lines).anyMatch(l -> l.startsWith("COMMIT AT: when the completion reached"));
  }

  @Test
  void aDirectoryWithoutCheckpointsIsAClearError() throws Exception {
    Path missing = dir.resolve("missing");
    Path empty = Files.createDirectory(dir.resolve("empty"));
    Files.createDirectory(empty.resolve("chk-3"));

    Cli.Result gone = Cli.run("checkpoints", missing.toString());
    Cli.Result none = Cli.run("checkpoints", empty.toString());

    assertThat(gone.exitCode()).isEqualTo(1);
    assertThat(gone.err()).contains(missing + " does not exist");
    assertThat(none.exitCode()).isEqualTo(1);
    assertThat(none.err())
        .contains(empty + " holds no completed checkpoint (chk-3 never completed)");
    assertThat(missing).doesNotExist();
  }

  private static double kib(String size) {
    String[] parts = SPACE.split(size);
    double value = Double.parseDouble(parts[0]);
    return switch (parts[1]) {
      case "B" -> value / 1024;
      case "KiB" -> value;
      case "MiB" -> value * 1024;
      default -> throw new AssertionError(size);
    };
  }
}
