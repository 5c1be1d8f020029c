package io.weir.cli;

import io.weir.runtime.checkpoint.CheckpointHistory;
import io.weir.runtime.checkpoint.CompletedCheckpoint;
import io.weir.runtime.checkpoint.OperatorState;
import io.weir.runtime.checkpoint.OperatorSubtaskState;
import io.weir.runtime.storage.CheckpointHistoryFormat;
import io.weir.runtime.storage.FileSystems;
import io.weir.runtime.storage.StreamStateHandle;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code weir checkpoints DIR}: the completed checkpoints of a job's checkpoint directory as a
 * table, each verified. Reads only.
 */
@Command(
    name = "checkpoints",
    mixinStandardHelpOptions = true,
    description = {
      "List a job's completed checkpoints as a table.",
      "Per checkpoint: id, trigger time (UTC),"
          + " state size, uploaded size (bytes this checkpoint wrote itself, without files of"
          + " earlier incremental checkpoints it refers to), state files, whether a subtask took"
          + " it unaligned, and whether it verifies (as weir verify)."
    },
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {
      "0:the table was printed (whether or not every checkpoint verifies)",
      "1:DIR does not exist or holds no checkpoint; with --timeline, the newest keeps no history or"
          + " ID is not in it",
      "2:invalid arguments"
    })
final class CheckpointsCommand implements Callable<Integer> {

  private static final DateTimeFormatter TIME =
      DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSS", Locale.ROOT).withZone(ZoneOffset.UTC);

  @Spec CommandSpec spec;

  @Parameters(
      paramLabel = "DIR",
      description = "A job's checkpoint directory (<checkpoint dir>/<job id>), or one chk-<n>.")
  String dir;

  @Option(names = "--no-verify", description = "Do not read the state files (VERIFIES shows '-').")
  boolean noVerify;

  @Option(
      names = "--timeline",
      arity = "0..1",
      fallbackValue = "-1",
      paramLabel = "ID",
      description =
          "Instead of the table: the checkpoint history kept beside the newest completed"
              + " checkpoint (or the chk-<n> given), and the timeline of checkpoint ID in it (the"
              + " newest without ID): each subtask's start delay, alignment, sync and async parts,"
              + " when its acknowledgement arrived, and the critical path.")
  Long timeline;

  /** One row of the table. */
  record Row(
      String id,
      String time,
      String stateSize,
      String uploaded,
      String files,
      String unaligned,
      String verifies) {}

  @Override
  public Integer call() throws Exception {
    CheckpointPaths.Target target = CheckpointPaths.find(dir);
    if (target.checkpoints().isEmpty()) {
      throw new IOException(
          dir
              + " holds no completed checkpoint"
              + (target.incomplete().isEmpty()
                  ? ""
                  : " (" + String.join(", ", target.incomplete()) + " never completed)"));
    }
    PrintWriter out = spec.commandLine().getOut();
    if (timeline != null) {
      printTimeline(target, out);
      return 0;
    }
    List<Row> rows = new ArrayList<>();
    List<String> notes = new ArrayList<>();
    try (StateFileVerifier verifier = new StateFileVerifier()) {
      for (CheckpointPaths.Found found : target.checkpoints()) {
        if (found.checkpoint() == null) {
          rows.add(new Row(found.name(), "?", "?", "?", "?", "unknown", "no"));
          notes.add(found.name() + ": " + found.problem());
          continue;
        }
        CompletedCheckpoint cp = found.checkpoint().checkpoint();
        String verifies = "-";
        if (!noVerify) {
          List<String> problems =
              verifier.verify(found.checkpoint(), found.name(), Progress.onStandardError());
          if (found.problem() != null) {
            problems = new ArrayList<>(problems);
            problems.add(0, found.problem());
          }
          verifies = problems.isEmpty() ? "yes" : "no";
          problems.forEach(p -> notes.add(found.name() + ": " + p));
        }
        rows.add(row(cp, verifies));
      }
    }
    print(rows, out);
    for (String name : target.incomplete()) {
      out.println(name + ": no _metadata, never completed");
    }
    notes.forEach(out::println);
    out.flush();
    return 0;
  }

  private void printTimeline(CheckpointPaths.Target target, PrintWriter out) throws IOException {
    CheckpointPaths.Found newest = null;
    for (CheckpointPaths.Found found : target.checkpoints()) {
      if (found.checkpoint() != null) {
        newest = found;
      }
    }
    if (newest == null) {
      throw new IOException(dir + " holds no readable completed checkpoint");
    }
    URI uri = FileSystems.toUri(newest.checkpoint().externalPointer());
    CheckpointHistory history = CheckpointHistoryFormat.read(FileSystems.get(uri), uri);
    if (history.checkpoints().isEmpty()) {
      throw new IOException(
          newest.name()
              + " keeps no checkpoint history ("
              + CheckpointHistoryFormat.FILE
              + "): it was written by a Weir that kept none, or its JobManager died before"
              + " writing it");
    }
    CheckpointTimeline.print(history, newest.name(), timeline, out);
    out.flush();
  }

  private static Row row(CompletedCheckpoint cp, String verifies) {
    long stateSize = 0;
    long uploaded = 0;
    Set<String> files = new HashSet<>();
    boolean channelState = false;
    String own = "chk-" + cp.checkpointId() + "/";
    String sharedOwn = "shared/" + cp.checkpointId() + "-";
    for (OperatorState op : cp.operators()) {
      for (OperatorSubtaskState subtask : op.subtasks()) {
        stateSize += subtask.stateSize();
        for (StreamStateHandle handle : subtask.handles()) {
          if (handle instanceof StreamStateHandle.File f) {
            files.add(f.relativePath());
            if (f.relativePath().startsWith(own) || f.relativePath().startsWith(sharedOwn)) {
              uploaded += f.size();
            }
          } else {
            uploaded += handle.size();
          }
        }
        channelState |= subtask.hasChannelState();
      }
    }
    return new Row(
        Long.toString(cp.checkpointId()),
        TIME.format(Instant.ofEpochMilli(cp.timestamp())),
        Sizes.format(stateSize),
        Sizes.format(uploaded),
        Integer.toString(files.size()),
        // The metadata records no alignment; in-flight data is kept only by unaligned snapshots.
        channelState ? "yes" : "unknown",
        verifies);
  }

  private static void print(List<Row> rows, PrintWriter out) {
    List<String[]> cells = new ArrayList<>();
    cells.add(
        new String[] {
          "ID", "TRIGGERED (UTC)", "STATE SIZE", "UPLOADED", "FILES", "UNALIGNED", "VERIFIES"
        });
    for (Row r : rows) {
      cells.add(
          new String[] {
            r.id(), r.time(), r.stateSize(), r.uploaded(), r.files(), r.unaligned(), r.verifies()
          });
    }
    TextTable.print(cells, out);
  }
}
