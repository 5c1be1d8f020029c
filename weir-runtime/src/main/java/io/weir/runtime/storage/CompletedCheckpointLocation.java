package io.weir.runtime.storage;

import static io.weir.runtime.storage.CheckpointLayout.CHECKPOINT_DIR;
import static io.weir.runtime.storage.CheckpointLayout.IN_PROGRESS_SUFFIX;
import static io.weir.runtime.storage.CheckpointLayout.METADATA_FILE;
import static io.weir.runtime.storage.CheckpointLayout.SHARED_DIR;

import io.weir.api.config.Configuration;
import io.weir.runtime.checkpoint.CompletedCheckpoint;
import io.weir.runtime.checkpoint.OperatorState;
import io.weir.runtime.checkpoint.OperatorSubtaskState;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.regex.Matcher;

/**
 * A completed checkpoint or savepoint found at a path a user gave, read where it is now (Flink's
 * {@code CompletedCheckpointStorageLocation}): read-only, so that restoring never changes it. Paths
 * in its handles are relative to the directory that holds its {@code chk-<n>} directory, and its
 * own files are found in its directory whatever that is called now; so a job directory, or one
 * checkpoint, can be copied or moved and restored from its new place. A job resuming from it writes
 * its own checkpoints to its own {@link CheckpointStorage}.
 *
 * <p>Thread-safe: holds no mutable state besides the file system's.
 */
public final class CompletedCheckpointLocation implements FileStateReader {

  private final CompletedCheckpoint checkpoint;
  private final String checkpointDir;
  private final String jobDir;
  private final StateFiles files;

  private CompletedCheckpointLocation(
      FileSystem fs, CompletedCheckpoint checkpoint, String checkpointDir) {
    this.checkpoint = checkpoint;
    this.checkpointDir = checkpointDir;
    this.jobDir = Objects.requireNonNullElse(FileSystems.parent(checkpointDir), checkpointDir);
    this.files = new StateFiles(fs, this::resolve);
  }

  /**
   * Loads the completed checkpoint a user pointed to, to resume a job from it.
   *
   * @param pathOrUri a checkpoint's {@code chk-<n>} directory or its {@code _metadata} file, as a
   *     URI or a local path; the external pointer a commit returned works
   * @param conf the configuration the file system is made with (the job's; null: the process's)
   * @return the verified checkpoint, with this location as its storage
   * @throws FileNotFoundException if nothing is at the path
   * @throws DamagedStateException naming the path if it holds no completed Weir checkpoint, its
   *     metadata is corrupt or too new, or a state file it references is missing
   * @throws IOException naming the path when a read failed for a reason that may pass
   * @throws IllegalArgumentException for an unsupported URI scheme
   */
  public static RetainedCheckpoint load(String pathOrUri, Configuration conf) throws IOException {
    RetainedCheckpoint retained = read(pathOrUri, conf);
    CompletedCheckpointLocation location = (CompletedCheckpointLocation) retained.storage();
    String missing = CheckpointLayout.firstMissingFile(location.files, retained.checkpoint());
    if (missing != null) {
      throw new DamagedStateException("Cannot restore from " + pathOrUri + ": " + missing);
    }
    return retained;
  }

  /**
   * Reads the metadata of the checkpoint at {@code pathOrUri} as {@link #load} does, but does not
   * check that its state files exist: for tools that report every problem of a checkpoint ({@code
   * weir verify}, {@code weir inspect}) rather than the first. A state file that is missing fails
   * {@link #verifyState} and {@link #readState} naming it.
   *
   * @throws FileNotFoundException if nothing is at the path
   * @throws DamagedStateException naming the path if it holds no completed Weir checkpoint, or its
   *     metadata is corrupt or too new
   * @throws IOException naming the path when a read failed for a reason that may pass
   */
  public static RetainedCheckpoint read(String pathOrUri, Configuration conf) throws IOException {
    URI uri = FileSystems.toUri(pathOrUri);
    FileSystem fs = FileSystems.get(uri, conf);
    String path = FileSystems.pathOf(uri);
    if (!fs.exists(path)) {
      throw new FileNotFoundException(
          "Cannot restore from " + pathOrUri + ": " + fs.toUri(path) + " does not exist");
    }
    String checkpointDir;
    String metadata;
    if (FileSystems.name(path).equals(METADATA_FILE) || !CheckpointLayout.isDirectory(fs, path)) {
      metadata = path; // a metadata file, perhaps renamed: its magic number tells
      checkpointDir = Objects.requireNonNullElse(FileSystems.parent(path), "/");
    } else {
      checkpointDir = path;
      metadata = FileSystems.child(path, METADATA_FILE);
      if (!fs.exists(metadata)) {
        throw new DamagedStateException(notACheckpoint(fs, pathOrUri, path));
      }
    }
    CompletedCheckpoint checkpoint = CheckpointLayout.readMetadata(fs, metadata);
    CompletedCheckpointLocation location =
        new CompletedCheckpointLocation(fs, checkpoint, checkpointDir);
    return new RetainedCheckpoint(checkpoint, location.pointer(), location);
  }

  /**
   * What a restore path names: one checkpoint, or every completed checkpoint of a job's checkpoint
   * directory.
   *
   * @param checkpoints the candidates, newest first; one when the path names a checkpoint
   * @param skipped why checkpoints of a job directory were passed over (unreadable metadata, a
   *     missing file), one line each
   * @param jobDirectory true when the path named a job's checkpoint directory
   */
  public record RestoreCandidates(
      List<RetainedCheckpoint> checkpoints, List<String> skipped, boolean jobDirectory) {}

  /**
   * Loads what a user pointed to, to resume a job from it: a checkpoint's {@code chk-<n>} directory
   * or {@code _metadata} file (as {@link #load}), or a job's checkpoint directory, whose completed
   * checkpoints are all returned, newest first, each at its own location. A {@code chk-<n>} without
   * {@code _metadata} never completed and is passed over silently; one that is damaged or misses a
   * file is passed over and told in {@link RestoreCandidates#skipped}.
   *
   * @throws IOException naming the path if it holds no completed Weir checkpoint, or naming the
   *     checkpoint whose read failed for a reason that may pass (a timeout): none is passed over
   *     for that, since resuming from an older one would go back further than the job got
   */
  public static RestoreCandidates loadRestoreCandidates(String pathOrUri, Configuration conf)
      throws IOException {
    URI uri = FileSystems.toUri(pathOrUri);
    FileSystem fs = FileSystems.get(uri, conf);
    String path = FileSystems.pathOf(uri);
    if (!fs.exists(path)
        || FileSystems.name(path).equals(METADATA_FILE)
        || !CheckpointLayout.isDirectory(fs, path)
        || fs.exists(FileSystems.child(path, METADATA_FILE))
        || CheckpointLayout.checkpointDirectoriesNewestFirst(fs, path).isEmpty()) {
      return new RestoreCandidates(List.of(load(pathOrUri, conf)), List.of(), false);
    }
    List<RetainedCheckpoint> checkpoints = new ArrayList<>();
    List<String> skipped = new ArrayList<>();
    for (String name : CheckpointLayout.checkpointDirectoriesNewestFirst(fs, path)) {
      String dir = FileSystems.child(path, name);
      if (!fs.exists(FileSystems.child(dir, METADATA_FILE))) {
        continue; // never completed
      }
      try {
        checkpoints.add(load(fs.toUri(dir).toString(), conf));
      } catch (IOException e) {
        if (!DamagedStateException.isDamage(e)) {
          throw new IOException(
              "reading "
                  + name
                  + " of "
                  + fs.toUri(path)
                  + " failed ("
                  + e.getMessage()
                  + "); it may be intact, so no checkpoint was skipped for it",
              e);
        }
        skipped.add(name + " skipped: " + e.getMessage());
      } catch (RuntimeException e) {
        skipped.add(name + " skipped: " + e.getMessage());
      }
    }
    if (checkpoints.isEmpty()) {
      throw new IOException(
          "Cannot restore from "
              + pathOrUri
              + ": the job directory "
              + fs.toUri(path)
              + " holds no intact completed checkpoint"
              + (skipped.isEmpty() ? "" : " (" + String.join("; ", skipped) + ")"));
    }
    return new RestoreCandidates(checkpoints, skipped, true);
  }

  /** The checkpoint, as its metadata says. */
  public CompletedCheckpoint checkpoint() {
    return checkpoint;
  }

  /** The URI of the checkpoint's directory, which {@link #load} turns back into this location. */
  public String pointer() {
    return files.fileSystem().toUri(checkpointDir).toString();
  }

  @Override
  public StorageReference reference() {
    return StorageReference.checkpoint(pointer());
  }

  @Override
  public StateFiles stateFiles() {
    return files;
  }

  /**
   * Deletes a checkpoint a job restored in {@code CLAIM} mode and no longer needs: its {@code
   * _metadata} first, then its own files and the shared files it refers to. Refused for a savepoint
   * (Weir never deletes one).
   */
  public void discard() throws IOException {
    if (checkpoint.savepoint()) {
      throw new UnsupportedOperationException(
          "Savepoint " + pointer() + " is never deleted by Weir");
    }
    List<String> shared = new ArrayList<>();
    for (OperatorState operator : checkpoint.operators()) {
      for (OperatorSubtaskState subtask : operator.subtasks()) {
        for (StreamStateHandle handle : subtask.handles()) {
          if (handle instanceof StreamStateHandle.File file
              && file.relativePath().startsWith(SHARED_DIR + "/")) {
            shared.add(files.resolve(file.relativePath()));
          }
        }
      }
    }
    FileSystem fs = files.fileSystem();
    fs.delete(FileSystems.child(checkpointDir, METADATA_FILE), false);
    fs.delete(checkpointDir, true);
    if (!shared.isEmpty()) {
      fs.deleteFiles(shared);
    }
  }

  @Override
  public String toString() {
    return "CompletedCheckpointLocation[" + pointer() + "]";
  }

  /**
   * Where a handle's file is now: the checkpoint's own files in its directory, whatever its name.
   */
  private String resolve(String relativePath) {
    String own = CheckpointLayout.checkpointDirName(checkpoint.checkpointId()) + "/";
    if (relativePath.startsWith(own)) {
      return FileSystems.child(checkpointDir, relativePath.substring(own.length()));
    }
    return FileSystems.child(jobDir, relativePath);
  }

  /** True when {@code checkpointDir} holds metadata that reads back and verifies. */
  private static boolean hasIntactMetadata(FileSystem fs, String checkpointDir) {
    try {
      String metadata = FileSystems.child(checkpointDir, METADATA_FILE);
      return fs.exists(metadata) && CheckpointLayout.readMetadata(fs, metadata) != null;
    } catch (IOException | RuntimeException e) {
      return false;
    }
  }

  private static String notACheckpoint(FileSystem fs, String given, String dir) throws IOException {
    StringBuilder message =
        new StringBuilder("Cannot restore from ")
            .append(given)
            .append(": ")
            .append(fs.toUri(dir))
            .append(
                " has no " + METADATA_FILE + " file, so it is not a completed Weir checkpoint.");
    if (fs.exists(FileSystems.child(dir, METADATA_FILE + IN_PROGRESS_SUFFIX))) {
      message.append(" Its " + METADATA_FILE + IN_PROGRESS_SUFFIX + " shows it never completed.");
    }
    String newest = null;
    long newestId = -1;
    for (String name : fs.list(dir)) {
      Matcher m = CHECKPOINT_DIR.matcher(name);
      String child = FileSystems.child(dir, name);
      if (m.matches() && Long.parseLong(m.group(1)) > newestId && hasIntactMetadata(fs, child)) {
        newestId = Long.parseLong(m.group(1));
        newest = child;
      }
    }
    if (newest != null) {
      message
          .append(" It is a job's checkpoint directory: give one of its checkpoints, such as ")
          .append(fs.toUri(newest))
          .append('.');
    } else {
      message.append(
          " Give the chk-<n> directory of a retained checkpoint, or its _metadata file.");
    }
    return message.toString();
  }
}
