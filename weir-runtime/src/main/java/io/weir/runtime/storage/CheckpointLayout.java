package io.weir.runtime.storage;

import io.weir.runtime.checkpoint.CompletedCheckpoint;
import io.weir.runtime.checkpoint.OperatorState;
import io.weir.runtime.checkpoint.OperatorSubtaskState;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The names of a job's checkpoint directory, which the job's storage writes, a loaded checkpoint
 * and the orphan scan read, and Flink lays out alike:
 *
 * <pre>
 * &lt;job dir&gt;/chk-&lt;n&gt;/_metadata     the checkpoint's metadata, written last
 * &lt;job dir&gt;/chk-&lt;n&gt;/&lt;uuid&gt;        state files of checkpoint n
 * &lt;job dir&gt;/shared/&lt;n&gt;-&lt;uuid&gt;   state shared by checkpoints (incremental), uploaded by n
 * </pre>
 */
final class CheckpointLayout {

  /** The name of a completed checkpoint's metadata file in its {@code chk-<n>} directory. */
  static final String METADATA_FILE = "_metadata";

  static final String IN_PROGRESS_SUFFIX = ".inprogress";
  static final String SHARED_DIR = "shared";

  static final Pattern CHECKPOINT_DIR = Pattern.compile("chk-(\\d{1,18})");

  /** A file in {@code shared/}: the checkpoint that uploaded it, a dash, a UUID. */
  static final Pattern SHARED_FILE = Pattern.compile("(\\d{1,18})-[0-9a-f-]{36}");

  private CheckpointLayout() {}

  static String checkpointDirName(long checkpointId) {
    return "chk-" + checkpointId;
  }

  static CompletedCheckpoint readMetadata(FileSystem fs, String path) throws IOException {
    byte[] bytes;
    try (InputStream in = fs.open(path)) {
      bytes = in.readAllBytes();
    }
    return MetadataSerializer.deserialize(bytes, fs.toUri(path).toString());
  }

  /** The {@code chk-<n>} entries of {@code dir}, highest {@code n} first. */
  static List<String> checkpointDirectoriesNewestFirst(FileSystem fs, String dir)
      throws IOException {
    List<String> names = new ArrayList<>();
    for (String name : fs.list(dir)) {
      if (CHECKPOINT_DIR.matcher(name).matches()) {
        names.add(name);
      }
    }
    names.sort(Comparator.comparingLong((String n) -> Long.parseLong(n.substring(4))).reversed());
    return names;
  }

  static boolean isDirectory(FileSystem fs, String path) {
    try {
      fs.list(path);
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  /**
   * What is wrong with the files {@code checkpoint} references, as {@code files} resolves them, or
   * null if they all exist.
   */
  static String firstMissingFile(StateFiles files, CompletedCheckpoint checkpoint)
      throws IOException {
    FileSystem fs = files.fileSystem();
    for (OperatorState operator : checkpoint.operators()) {
      for (OperatorSubtaskState subtask : operator.subtasks()) {
        for (StreamStateHandle handle : subtask.handles()) {
          if (handle instanceof StreamStateHandle.File file) {
            String path;
            try {
              path = files.resolve(file.relativePath());
            } catch (IOException e) {
              return e.getMessage();
            }
            if (!fs.exists(path)) {
              return "state file "
                  + file.relativePath()
                  + " of operator "
                  + operator.operatorName()
                  + " ("
                  + fs.toUri(path)
                  + ") is missing"
                  + (file.relativePath().startsWith(SHARED_DIR + "/")
                      ? ". It is a file of an incremental checkpoint, kept in the job directory's "
                          + SHARED_DIR
                          + "/ folder: copy or move the whole job directory, not one checkpoint"
                      : "");
            }
          }
        }
      }
    }
    return null;
  }
}
