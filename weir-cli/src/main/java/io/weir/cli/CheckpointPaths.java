package io.weir.cli;

import io.weir.runtime.checkpoint.OperatorState;
import io.weir.runtime.checkpoint.OperatorSubtaskState;
import io.weir.runtime.storage.CheckpointHistoryFormat;
import io.weir.runtime.storage.CompletedCheckpointLocation;
import io.weir.runtime.storage.FileSystem;
import io.weir.runtime.storage.FileSystemCheckpointStorage;
import io.weir.runtime.storage.FileSystems;
import io.weir.runtime.storage.RetainedCheckpoint;
import io.weir.runtime.storage.StreamStateHandle;
import java.io.IOException;
import java.net.URI;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * What a path given to {@code weir verify}, {@code inspect} or {@code checkpoints} names: one
 * checkpoint (its {@code chk-<n>} directory or its {@code _metadata} file) or a job's checkpoint
 * directory, whose completed checkpoints are all read. Metadata is read and checked (magic number,
 * version, checksum); state files are not opened here.
 */
final class CheckpointPaths {

  private static final Pattern CHECKPOINT_DIR = Pattern.compile("chk-(\\d{1,18})");

  private CheckpointPaths() {}

  /**
   * One checkpoint found at the path.
   *
   * @param name how to call it in output: {@code chk-<n>} or the path given
   * @param checkpoint its metadata and a read-only storage for its state; null if unreadable
   * @param problem why its metadata cannot be read; null if it was read
   */
  record Found(String name, RetainedCheckpoint checkpoint, String problem) {}

  /**
   * What {@code path} names.
   *
   * @param checkpoints the checkpoints, oldest first
   * @param jobDirectory true when {@code path} is a job's checkpoint directory
   * @param incomplete {@code chk-<n>} directories of a job directory without {@code _metadata}
   */
  record Target(List<Found> checkpoints, boolean jobDirectory, List<String> incomplete) {}

  /**
   * Reads what {@code path} names.
   *
   * @throws IOException naming the path when nothing is there or it is no checkpoint
   */
  static Target find(String path) throws IOException {
    URI uri = FileSystems.toUri(path);
    FileSystem fs = FileSystems.get(uri);
    String local = FileSystems.pathOf(uri);
    if (!fs.exists(local)) {
      throw new IOException(
          path
              + " does not exist. Give a checkpoint's chk-<n> directory, its _metadata file, or a"
              + " job's checkpoint directory.");
    }
    List<String> children = listOrNull(fs, local);
    if (children == null
        || children.contains(FileSystemCheckpointStorage.METADATA_FILE)
        || children.stream().noneMatch(n -> CHECKPOINT_DIR.matcher(n).matches())) {
      try {
        return new Target(
            List.of(new Found(path, CompletedCheckpointLocation.read(path, null), null)),
            false,
            List.of());
      } catch (IOException e) {
        throw new IOException(
            e.getMessage().replace("Cannot restore from " + path + ": ", path + ": "), e);
      }
    }
    List<String> names =
        children.stream()
            .filter(n -> CHECKPOINT_DIR.matcher(n).matches())
            .sorted(Comparator.comparingLong(n -> Long.parseLong(n.substring(4))))
            .toList();
    List<Found> found = new ArrayList<>();
    List<String> incomplete = new ArrayList<>();
    for (String name : names) {
      String dir = child(local, name);
      List<String> files = listOrNull(fs, dir);
      if (files == null || !files.contains(FileSystemCheckpointStorage.METADATA_FILE)) {
        incomplete.add(name);
        continue;
      }
      try {
        RetainedCheckpoint checkpoint =
            CompletedCheckpointLocation.read(fs.toUri(dir).toString(), null);
        long id = checkpoint.checkpoint().checkpointId();
        String problem =
            name.equals("chk-" + id)
                ? null
                : name
                    + "/_metadata holds checkpoint "
                    + id
                    + ": it was renamed or copied into the wrong directory";
        found.add(new Found(name, checkpoint, problem));
      } catch (IOException | RuntimeException e) {
        found.add(new Found(name, null, e.getMessage()));
      }
    }
    return new Target(found, true, incomplete);
  }

  /**
   * The files of the job directory {@code path} that no checkpoint of {@code target} refers to,
   * relative to it: in {@code shared/}, {@code taskowned/} and the completed {@code chk-<n>}
   * directories ({@code _metadata} aside). Incomplete checkpoints are in {@link
   * Target#incomplete()}.
   */
  static List<String> unreferencedFiles(String path, Target target) throws IOException {
    URI uri = FileSystems.toUri(path);
    FileSystem fs = FileSystems.get(uri);
    String jobDir = FileSystems.pathOf(uri);
    Set<String> referenced = new HashSet<>();
    for (Found found : target.checkpoints()) {
      if (found.checkpoint() == null) {
        continue;
      }
      for (OperatorState op : found.checkpoint().checkpoint().operators()) {
        for (OperatorSubtaskState subtask : op.subtasks()) {
          for (StreamStateHandle handle : subtask.handles()) {
            if (handle instanceof StreamStateHandle.File f) {
              referenced.add(f.relativePath());
            }
          }
        }
      }
    }
    List<String> dirs = new ArrayList<>(List.of("shared", "taskowned"));
    target.checkpoints().forEach(f -> dirs.add(f.name()));
    List<String> unreferenced = new ArrayList<>();
    for (String dir : dirs) {
      List<String> names = listOrNull(fs, child(jobDir, dir));
      if (names == null) {
        continue;
      }
      for (String name : names) {
        String relative = dir + "/" + name;
        if (!name.startsWith(FileSystemCheckpointStorage.METADATA_FILE)
            && !name.equals(CheckpointHistoryFormat.FILE)
            && !referenced.contains(relative)) {
          unreferenced.add(relative);
        }
      }
    }
    return unreferenced;
  }

  private static String child(String dir, String name) {
    return dir.endsWith("/") ? dir + name : dir + "/" + name;
  }

  private static List<String> listOrNull(FileSystem fs, String path) {
    try {
      return fs.list(path);
    } catch (IOException e) {
      return null;
    }
  }
}
