package io.weir.runtime.storage;

import io.weir.api.config.Configuration;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.util.UUID;

/**
 * The directory of one savepoint, as the tasks write its state (Flink's savepoint {@code
 * CheckpointStorageLocation}): files go straight into the savepoint's own directory, which the
 * coordinator named when it triggered the savepoint, and their handles name them {@code
 * chk-<n>/<name>}, which {@link CompletedCheckpointLocation#load} resolves against the directory
 * the savepoint's {@code _metadata} is in. Nothing goes to the job's checkpoint directory and
 * nothing is shared; state of at most {@code inlineThresholdBytes} stays inline. Touches the file
 * system only when state is written (the directory is created with its first file).
 *
 * <p>Thread-safe: holds no mutable state.
 */
public final class SavepointLocation implements CheckpointStateWriter {

  private final long checkpointId;
  private final String dir;
  private final int inlineThresholdBytes;
  private final StateFiles files;

  private SavepointLocation(FileSystem fs, String dir, long checkpointId, int inlineThreshold) {
    this.checkpointId = checkpointId;
    this.dir = dir;
    this.inlineThresholdBytes = inlineThreshold;
    this.files = new StateFiles(fs, this::resolve);
  }

  /**
   * Where the tasks write the state of savepoint {@code checkpointId}.
   *
   * @param savepointDir a {@code file:} URI or another scheme's, or a local path
   * @param conf the job's configuration, for the file system's settings (null: the process's)
   */
  public static SavepointLocation of(
      String savepointDir, long checkpointId, int inlineThresholdBytes, Configuration conf) {
    if (inlineThresholdBytes < 0) {
      throw new IllegalArgumentException(
          "The inline threshold cannot be negative: " + inlineThresholdBytes);
    }
    URI uri = FileSystems.toUri(savepointDir);
    return new SavepointLocation(
        FileSystems.get(uri, conf), FileSystems.pathOf(uri), checkpointId, inlineThresholdBytes);
  }

  @Override
  public StreamStateHandle writeState(long checkpointId, byte[] data, String description)
      throws IOException {
    return files.writeInlineOrFile(
        checkpointId, data, description, inlineThresholdBytes, () -> newFile(checkpointId));
  }

  @Override
  public StreamStateHandle writeState(long checkpointId, String description, StateWriter writer)
      throws IOException {
    return files.write(checkpointId, newFile(checkpointId), description, writer);
  }

  /** A savepoint shares nothing: the file is the savepoint's own. */
  @Override
  public StreamStateHandle writeSharedFile(long checkpointId, Path file, String description)
      throws IOException {
    return writeFile(checkpointId, file, description);
  }

  @Override
  public StreamStateHandle writeFile(long checkpointId, Path file, String description)
      throws IOException {
    return files.copy(checkpointId, newFile(checkpointId), file, description);
  }

  private String newFile(long checkpointId) {
    if (checkpointId != this.checkpointId) {
      throw new IllegalStateException(
          "The location of savepoint "
              + this.checkpointId
              + " at "
              + files.fileSystem().toUri(dir)
              + " cannot hold state of checkpoint "
              + checkpointId);
    }
    return CheckpointLayout.checkpointDirName(checkpointId) + "/" + UUID.randomUUID();
  }

  private String resolve(String relativePath) throws IOException {
    String own = CheckpointLayout.checkpointDirName(checkpointId) + "/";
    if (!relativePath.startsWith(own)) {
      throw new IOException(
          "State file path '"
              + relativePath
              + "' is not a file of savepoint "
              + checkpointId
              + " ("
              + files.fileSystem().toUri(dir)
              + ")");
    }
    return FileSystems.child(dir, relativePath.substring(own.length()));
  }

  @Override
  public String toString() {
    return "SavepointLocation[" + files.fileSystem().toUri(dir) + "]";
  }
}
