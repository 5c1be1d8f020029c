package io.weir.runtime.storage;

import io.weir.runtime.checkpoint.CompletedCheckpoint;
import io.weir.runtime.checkpoint.IncrementalKeyedStateHandle;
import io.weir.runtime.checkpoint.OperatorState;
import io.weir.runtime.checkpoint.OperatorSubtaskState;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URI;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Writes a completed savepoint into a directory of its own, {@code <dir>/savepoint-<job id
 * prefix>-<random>/}: every state file the tasks wrote into the job's checkpoint storage is copied
 * next to a new {@code _metadata}, so the savepoint is self-contained (it refers to no file of the
 * job's {@code shared/} directory) and relocatable (its handles name its own files, {@code
 * chk-<n>/<name>}, which {@link FileSystemCheckpointStorage#loadFromPath} resolves against the
 * directory the savepoint is in wherever it was moved). Inline state stays inline. Weir never
 * deletes a savepoint.
 *
 * <p>Any thread; the coordinator calls it off its lock.
 */
public final class Savepoints {

  /** The prefix of a savepoint's directory name, as Flink's. */
  public static final String DIRECTORY_PREFIX = "savepoint-";

  private static final SecureRandom RANDOM = new SecureRandom();

  private Savepoints() {}

  /**
   * Copies {@code savepoint}'s state out of {@code source} into a new directory below {@code
   * directory} and writes its metadata there last.
   *
   * @return the URI of the savepoint's directory, which {@code execution.state-recovery.path}
   *     accepts
   * @throws IOException naming the state file or target path at fault; a savepoint that refers to
   *     shared state (which would not be self-contained) is refused
   */
  public static String write(
      CompletedCheckpoint savepoint, CheckpointStorage source, String directory)
      throws IOException {
    URI base = FileSystems.toUri(directory);
    FileSystem fs = FileSystems.get(base);
    String jobPrefix = savepoint.jobId().substring(0, Math.min(6, savepoint.jobId().length()));
    byte[] random = new byte[6];
    RANDOM.nextBytes(random);
    String dir =
        FileSystems.child(
            FileSystems.pathOf(base),
            DIRECTORY_PREFIX + jobPrefix + "-" + HexFormat.of().formatHex(random));
    fs.mkdirs(dir);
    String own = "chk-" + savepoint.checkpointId() + "/";
    Map<String, StreamStateHandle.File> files = new LinkedHashMap<>();
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
          if (handle instanceof StreamStateHandle.File file) {
            if (!file.relativePath().startsWith(own)) {
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
            files.put(file.relativePath(), file);
          }
        }
      }
    }
    for (StreamStateHandle.File file : files.values()) {
      byte[] bytes = source.readState(file); // verified against its size and checksum
      String target = FileSystems.child(dir, file.relativePath().substring(own.length()));
      try (OutputStream out = fs.create(target, false)) {
        out.write(bytes);
      }
    }
    String metadata = FileSystems.child(dir, FileSystemCheckpointStorage.METADATA_FILE);
    byte[] bytes = MetadataSerializer.serialize(savepoint);
    if (fs.hasAtomicRename()) {
      String inProgress = metadata + FileSystemCheckpointStorage.IN_PROGRESS_SUFFIX;
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
}
