package io.weir.cli;

import io.weir.api.CheckpointStatistics;
import io.weir.api.CheckpointStatistics.CriticalPath;
import io.weir.api.CheckpointStatistics.SinkCommit;
import io.weir.api.CheckpointStatistics.SubtaskCheckpointStatistics;
import io.weir.runtime.checkpoint.CheckpointHistory;
import java.io.PrintWriter;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * {@code weir checkpoints DIR --timeline}: the flight recorder's history kept beside a checkpoint,
 * then one checkpoint's timeline — a line per subtask, its phases in the order they ran — and what
 * set its duration.
 */
final class CheckpointTimeline {

  private static final DateTimeFormatter TIME =
      DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSS", Locale.ROOT).withZone(ZoneOffset.UTC);

  private CheckpointTimeline() {}

  /**
   * Prints {@code history}, read beside {@code where}, and the timeline of checkpoint {@code
   * selected} (the newest when negative).
   *
   * @throws IllegalArgumentException when {@code selected} is not in the history
   */
  static void print(CheckpointHistory history, String where, long selected, PrintWriter out) {
    List<CheckpointStatistics> checkpoints = history.checkpoints();
    CheckpointStatistics shown = null;
    for (CheckpointStatistics c : checkpoints) {
      if (selected < 0 || c.checkpointId() == selected) {
        shown = c;
      }
    }
    if (shown == null) {
      throw new IllegalArgumentException(
          "Checkpoint "
              + selected
              + " is not in the history kept beside "
              + where
              + "; it holds "
              + checkpoints.stream().map(c -> Long.toString(c.checkpointId())).toList());
    }
    out.printf(
        Locale.ROOT,
        "History kept beside %s: %d completed and %d failed over the job's life, the newest %d"
            + " here.%n",
        where,
        history.completed(),
        history.failed(),
        checkpoints.size());
    List<String[]> rows = new ArrayList<>();
    rows.add(
        new String[] {
          "ID",
          "KIND",
          "STATUS",
          "TRIGGERED (UTC)",
          "DURATION",
          "STATE SIZE",
          "UPLOADED",
          "CRITICAL PATH"
        });
    for (CheckpointStatistics c : checkpoints) {
      CriticalPath path = c.criticalPath();
      rows.add(
          new String[] {
            Long.toString(c.checkpointId()),
            c.savepoint() ? "savepoint" : "checkpoint",
            c.status().name(),
            TIME.format(Instant.ofEpochMilli(c.triggerTimestamp())),
            c.endToEndDurationMillis() + " ms",
            Sizes.format(c.stateSizeBytes()),
            Sizes.format(c.checkpointedSizeBytes()),
            path == null ? "-" : path.description()
          });
    }
    TextTable.print(rows, out);
    out.println();
    printTimeline(shown, out);
  }

  private static void printTimeline(CheckpointStatistics c, PrintWriter out) {
    out.printf(
        Locale.ROOT,
        "Checkpoint %d, %s in %d ms%s. Times in ms; each phase starts where the one before it"
            + " ended, from the trigger.%n",
        c.checkpointId(),
        c.status().name().toLowerCase(Locale.ROOT),
        c.endToEndDurationMillis(),
        c.unaligned() ? ", unaligned" : "");
    List<String[]> rows = new ArrayList<>();
    rows.add(
        new String[] {
          "TASK",
          "SUBTASK",
          "START DELAY",
          "ALIGNMENT",
          "SYNC",
          "ASYNC",
          "ACKNOWLEDGED AT",
          "IN-FLIGHT",
          "STATE SIZE",
          "UPLOADED",
          "FILES",
          "COMMIT AT",
          "COMMIT"
        });
    List<String> failedCommits = new ArrayList<>();
    for (SubtaskCheckpointStatistics s : c.subtasks()) {
      long acknowledged = s.endToEndDurationMillis(c.triggerTimestamp());
      SinkCommit commit = s.commit();
      if (commit != null && commit.failure() != null) {
        failedCommits.add(c.subtaskName(s) + ": " + commit.failure());
      }
      rows.add(
          new String[] {
            s.taskName(),
            s.subtaskIndex() < 0 ? "all (max)" : Integer.toString(s.subtaskIndex()),
            Long.toString(s.startDelayMillis()),
            Long.toString(s.alignmentDurationMillis()) + (s.unaligned() ? " (unaligned)" : ""),
            Long.toString(s.syncDurationMillis()),
            Long.toString(s.asyncDurationMillis()),
            acknowledged < 0 ? "-" : Long.toString(acknowledged),
            Sizes.format(s.channelStateBytes()),
            Sizes.format(s.stateSizeBytes()),
            Sizes.format(s.checkpointedSizeBytes()),
            s.filesWritten() < 0 ? "-" : Integer.toString(s.filesWritten()),
            commit == null
                ? "-"
                : Long.toString(Math.max(0, commit.notifiedTimestamp() - c.triggerTimestamp())),
            commit == null
                ? "-"
                : commit.durationMillis() + (commit.failure() == null ? "" : " (failed)")
          });
    }
    TextTable.print(rows, out);
    for (String failed : failedCommits) {
      out.println("Sink commit failed at " + failed);
    }
    if (c.subtasks().stream().anyMatch(s -> s.subtaskIndex() < 0)) {
      out.println(
          "Older checkpoints keep one line per vertex: the longest of each phase, the sum of"
              + " sizes and files, the longest commit.");
    }
    if (c.subtasks().stream().anyMatch(s -> s.commit() != null)) {
      out.println(
          "COMMIT AT: when the completion reached a two-phase-commit sink (its TaskManager's"
              + " clock), after the trigger; COMMIT: how long its commit took.");
    }
    CriticalPath path = c.criticalPath();
    if (path != null) {
      out.println("Critical path: " + path.description());
      out.println("What would help: " + path.advice());
    }
    if (c.failureMessage() != null) {
      out.println("Failed: " + c.failureMessage());
    }
  }
}
