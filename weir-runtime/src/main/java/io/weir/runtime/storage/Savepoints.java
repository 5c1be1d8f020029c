package io.weir.runtime.storage;

import io.weir.api.config.Configuration;
import io.weir.runtime.checkpoint.CompletedCheckpoint;
import io.weir.runtime.checkpoint.IncrementalKeyedStateHandle;
import io.weir.runtime.checkpoint.OperatorState;
import io.weir.runtime.checkpoint.OperatorSubtaskState;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URI;
import java.security.SecureRandom;
import java.util.HexFormat;

/**
 * A savepoint's own directory, {@code <dir>/savepoint-<job id prefix>-<random>/}, as Flink lays it
 * out: the coordinator names it when it triggers the savepoint ({@link #newDirectory}); the tasks
 * write their state straight into it ({@link CheckpointStorageWorkerView#location}, a {@link
 * SavepointLocation}), nothing into the job's checkpoint storage; the coordinator writes the {@code
 * _metadata} last ({@link #write}), and deletes the directory of a savepoint that failed ({@link
 * #discard}). The handles in the metadata name the savepoint's own files ({@code chk-<n>/<name>},
 * which {@link CompletedCheckpointLocation#load} resolves against the directory the savepoint is
 * in), so it is self-contained (it refers to no file of the job's {@code shared/} directory) and
 * relocatable. Inline state stays inline. Weir never deletes a completed savepoint.
 *
 * <p>Any thread; the coordinator calls the methods that do I/O off its lock.
 */
public final class Savepoints {

  /** The prefix of a savepoint's directory name, as Flink's. */
  public static final String DIRECTORY_PREFIX = "savepoint-";

  private static final SecureRandom RANDOM = new SecureRandom();

  private Savepoints() {}

  /**
   * Names a new savepoint directory of job {@code jobId} below {@code directory}, without touching
   * the file system (the tasks create it with their first file, {@link #write} in any case).
   *
   * @return the directory's URI, which the tasks' {@link CheckpointStorageWorkerView#location} and
   *     {@code execution.state-recovery.path} accept
   * @throws IllegalArgumentException if {@code directory}'s scheme has no file system here
   */
  public static String newDirectory(String jobId, String directory, Configuration conf) {
    URI base = FileSystems.toUri(directory);
    FileSystem fs = FileSystems.get(base, conf);
    String jobPrefix = jobId.substring(0, Math.min(6, jobId.length()));
    byte[] random = new byte[6];
    RANDOM.nextBytes(random);
    String dir =
        FileSystems.child(
            FileSystems.pathOf(base),
            DIRECTORY_PREFIX + jobPrefix + "-" + HexFormat.of().formatHex(random));
    return fs.toUri(dir).toString();
  }

  /**
   * Writes the metadata of {@code savepoint}, whose tasks wrote their state into {@code
   * savepointDirectory}, last: to {@code _metadata.inprogress}, renamed to {@code _metadata} where
   * the file system renames atomically (an object store gets {@code _metadata} at once, which
   * becomes visible only complete).
   *
   * @return the URI of the savepoint's directory, which {@code execution.state-recovery.path}
   *     accepts
   * @throws IOException naming the target path at fault; a savepoint that refers to state outside
   *     its directory (which would not be self-contained) or holds native RocksDB files is refused
   */
  public static String write(
      CompletedCheckpoint savepoint, String savepointDirectory, Configuration conf)
      throws IOException {
    URI uri = FileSystems.toUri(savepointDirectory);
    FileSystem fs = FileSystems.get(uri, conf);
    String dir = FileSystems.pathOf(uri);
    String own = "chk-" + savepoint.checkpointId() + "/";
    for (OperatorState op : savepoint.operators()) {
      for (OperatorSubtaskState subtask : op.subtasks()) {
        if (subtask.keyed() instanceof IncrementalKeyedStateHandle) {
          throw new IOException(
              "Savepoint "
                  + savepoint.checkpointId()
                  + ": operator '"
                  + op.operatorName()
                  + "' wrote native RocksDB files instead of the canonical key-group format; a"
                  + " savepoint must be readable by every state backend");
        }
        for (StreamStateHandle handle : subtask.handles()) {
          if (handle instanceof StreamStateHandle.File file
              && !file.relativePath().startsWith(own)) {
            throw new IOException(
                "Savepoint "
                    + savepoint.checkpointId()
                    + ": operator '"
                    + op.operatorName()
                    + "' refers to "
                    + file.relativePath()
                    + ", which is not a file of the savepoint itself; a savepoint must be"
                    + " self-contained");
          }
        }
      }
    }
    fs.mkdirs(dir); // the tasks may have written no file (all state inline)
    String metadata = FileSystems.child(dir, CheckpointLayout.METADATA_FILE);
    byte[] bytes = MetadataSerializer.serialize(savepoint);
    if (fs.hasAtomicRename()) {
      String inProgress = metadata + CheckpointLayout.IN_PROGRESS_SUFFIX;
      try (OutputStream out = fs.create(inProgress, false)) {
        out.write(bytes);
      }
      fs.rename(inProgress, metadata);
    } else {
      try (OutputStream out = fs.create(metadata, false)) {
        out.write(bytes);
      }
    }
    return fs.toUri(dir).toString();
  }

  /**
   * Deletes the directory of a savepoint that did not complete (declined, timed out, its metadata
   * could not be written): its {@code _metadata} first, if it got that far, then whatever its tasks
   * wrote, so nothing is left that looks like a savepoint.
   */
  public static void discard(String savepointDirectory, Configuration conf) throws IOException {
    URI uri = FileSystems.toUri(savepointDirectory);
    FileSystem fs = FileSystems.get(uri, conf);
    String dir = FileSystems.pathOf(uri);
    fs.delete(FileSystems.child(dir, CheckpointLayout.METADATA_FILE), false);
    fs.delete(dir, true);
  }
}
