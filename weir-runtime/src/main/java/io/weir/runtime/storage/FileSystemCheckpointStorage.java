package io.weir.runtime.storage;

import static io.weir.runtime.storage.CheckpointLayout.SHARED_DIR;
import static io.weir.runtime.storage.CheckpointLayout.SHARED_FILE;
import static io.weir.runtime.storage.CheckpointLayout.checkpointDirName;

import io.weir.api.config.Configuration;
import io.weir.runtime.checkpoint.CheckpointHistory;
import io.weir.runtime.checkpoint.CompletedCheckpoint;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URI;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.regex.Matcher;

/**
 * A job's checkpoints in a directory of a {@link FileSystem}, laid out as {@link CheckpointLayout}
 * says: {@code <base>/<job-id>/chk-<n>/} per checkpoint, its {@code _metadata} written last, and
 * {@code shared/} for the files incremental checkpoints share.
 *
 * <p>State of at most {@code inlineThresholdBytes} is kept inline in the metadata; larger state
 * goes to a file of its own. Every handle records the CRC-32 of its bytes, verified on read. The
 * metadata is written to {@code _metadata.inprogress} and renamed to {@code _metadata}, so a
 * checkpoint directory without {@code _metadata} never completed and is ignored. Paths in handles
 * are relative to the job directory, so it can be moved and restored from its new place as a {@link
 * CompletedCheckpointLocation}.
 *
 * <p>Thread-safe: holds no mutable state besides the file system's.
 */
public final class FileSystemCheckpointStorage implements CheckpointStorage, FileStateReader {

  /** The name of a completed checkpoint's metadata file in its {@code chk-<n>} directory. */
  public static final String METADATA_FILE = CheckpointLayout.METADATA_FILE;

  private final FileSystem fs;
  private final String jobDir;
  private final int inlineThresholdBytes;
  private final Configuration conf;
  private final StateFiles files;

  private volatile boolean layoutCreated;

  /**
   * As {@link #FileSystemCheckpointStorage(URI, String, int, Configuration)} with the process's
   * file system settings.
   */
  public FileSystemCheckpointStorage(URI baseDir, String jobId, int inlineThresholdBytes) {
    this(baseDir, jobId, inlineThresholdBytes, null);
  }

  /**
   * Storage for the checkpoints of job {@code jobId} under {@code baseDir}. Touches the file system
   * only when a checkpoint is written or read.
   *
   * @param baseDir a {@code file:} URI or, without scheme, a local path
   * @param jobId the job, as 32 hex digits; the name of its directory
   * @param inlineThresholdBytes state of at most this many bytes is kept inline in the metadata
   * @param conf the job's configuration, which the file system and those of its savepoints are made
   *     with (null: the process's)
   * @throws IllegalArgumentException for an unsupported scheme, a job id that is no directory name,
   *     or a negative threshold
   */
  public FileSystemCheckpointStorage(
      URI baseDir, String jobId, int inlineThresholdBytes, Configuration conf) {
    if (inlineThresholdBytes < 0) {
      throw new IllegalArgumentException(
          "The inline threshold cannot be negative: " + inlineThresholdBytes);
    }
    this.fs = FileSystems.get(baseDir, conf);
    this.jobDir = FileSystems.child(FileSystems.pathOf(baseDir), checkJobId(jobId));
    this.inlineThresholdBytes = inlineThresholdBytes;
    this.conf = conf;
    this.files = new StateFiles(fs, relativePath -> FileSystems.child(jobDir, relativePath));
  }

  @Override
  public Configuration fileSystemConfiguration() {
    return conf;
  }

  @Override
  public int savepointInlineThresholdBytes() {
    return inlineThresholdBytes;
  }

  /** The job's directory: {@code <base>/<job-id>}. */
  public URI jobDirectory() {
    return fs.toUri(jobDir);
  }

  /** The directory of checkpoint {@code checkpointId}: its external pointer once committed. */
  public URI checkpointDirectory(long checkpointId) {
    return fs.toUri(checkpointDir(checkpointId));
  }

  @Override
  public String externalPointer(long checkpointId) {
    return checkpointDirectory(checkpointId).toString();
  }

  /** State of at most this many bytes is kept inline in the metadata. */
  public int inlineThresholdBytes() {
    return inlineThresholdBytes;
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

  @Override
  public StreamStateHandle writeSharedFile(long checkpointId, Path file, String description)
      throws IOException {
    createLayout();
    return files.copy(
        checkpointId, SHARED_DIR + "/" + checkpointId + "-" + UUID.randomUUID(), file, description);
  }

  @Override
  public StreamStateHandle writeFile(long checkpointId, Path file, String description)
      throws IOException {
    return files.copy(checkpointId, newFile(checkpointId), file, description);
  }

  @Override
  public StateFiles stateFiles() {
    return files;
  }

  @Override
  public void discardSharedState(StreamStateHandle handle) throws IOException {
    if (handle instanceof StreamStateHandle.File file) {
      fs.delete(files.resolve(file.relativePath()), false);
    }
  }

  @Override
  public void discardUnreferencedSharedState(Set<String> referenced, long upToCheckpointId)
      throws IOException {
    if (!layoutCreated) {
      return;
    }
    String shared = FileSystems.child(jobDir, SHARED_DIR);
    if (!fs.exists(shared)) {
      return; // nothing was shared, or the job directory is gone
    }
    for (String name : fs.list(shared)) {
      Matcher m = SHARED_FILE.matcher(name);
      if (m.matches()
          && Long.parseLong(m.group(1)) <= upToCheckpointId
          && !referenced.contains(SHARED_DIR + "/" + name)) {
        fs.delete(FileSystems.child(shared, name), false);
      }
    }
  }

  /** Deletes the orphans of the job directory (see {@link CheckpointDirectoryScan}). */
  @Override
  public void discardOrphanedState(boolean nothingInProgress) throws IOException {
    CheckpointDirectoryScan.cleanUp(fs, jobDir, nothingInProgress);
  }

  /**
   * Writes {@code chk-<n>/_metadata.inprogress}, then renames it to {@code _metadata}; on a file
   * system without atomic rename (an object store) writes {@code _metadata} directly, last.
   *
   * @return the checkpoint directory's URI, which {@link CompletedCheckpointLocation#load} accepts
   */
  @Override
  public String commitCheckpoint(CompletedCheckpoint checkpoint) throws IOException {
    createLayout();
    String dir = checkpointDir(checkpoint.checkpointId());
    String metadata = FileSystems.child(dir, METADATA_FILE);
    String inProgress = metadata + CheckpointLayout.IN_PROGRESS_SUFFIX;
    byte[] bytes = MetadataSerializer.serialize(checkpoint);
    if (!fs.hasAtomicRename()) {
      // An object store: a new object becomes visible only complete, so _metadata is written last,
      // under its final name; a rename would be a copy that a reader could see half done.
      try (OutputStream out = fs.create(metadata, false)) {
        out.write(bytes);
      } catch (FileAlreadyExistsException e) {
        throw alreadyCommitted(checkpoint, metadata, e);
      }
      return fs.toUri(dir).toString();
    }
    // A leftover from an attempt that failed before its rename is replaced.
    try (OutputStream out = fs.create(inProgress, true)) {
      out.write(bytes);
    }
    try {
      fs.rename(inProgress, metadata);
    } catch (FileAlreadyExistsException e) {
      fs.delete(inProgress, false);
      throw alreadyCommitted(checkpoint, metadata, e);
    }
    return fs.toUri(dir).toString();
  }

  private IOException alreadyCommitted(
      CompletedCheckpoint checkpoint, String metadata, FileAlreadyExistsException e) {
    return new IOException(
        "Checkpoint "
            + checkpoint.checkpointId()
            + " is already committed at "
            + fs.toUri(metadata)
            + "; a checkpoint id is never reused",
        e);
  }

  /**
   * Deletes {@code chk-<n>}: its {@code _metadata} first, then the state files. A crash in between
   * leaves a directory without metadata, which is ignored like an incomplete checkpoint, never a
   * checkpoint whose metadata promises files that are gone.
   */
  @Override
  public void writeHistory(String pointer, CheckpointHistory history) throws IOException {
    CheckpointHistoryFormat.write(pointer, history, conf);
  }

  @Override
  public CheckpointHistory readHistory(String pointer) throws IOException {
    return CheckpointHistoryFormat.read(pointer, conf);
  }

  @Override
  public void discardCheckpoint(long checkpointId) throws IOException {
    String dir = checkpointDir(checkpointId);
    fs.delete(FileSystems.child(dir, METADATA_FILE), false);
    fs.delete(dir, true);
  }

  /**
   * The completed checkpoints in the job directory, newest first. Each one's metadata is verified
   * and each state file it references must exist (their checksums are verified when read). A {@code
   * chk-<n>} directory without {@code _metadata} never completed and is passed over silently; one
   * that is unreadable or inconsistent adds a line to {@code problems}.
   */
  @Override
  public List<CompletedCheckpoint> loadRetained(List<String> problems) throws IOException {
    if (!fs.exists(jobDir)) {
      return List.of();
    }
    List<CompletedCheckpoint> retained = new ArrayList<>();
    for (String name : CheckpointLayout.checkpointDirectoriesNewestFirst(fs, jobDir)) {
      long id = Long.parseLong(name.substring(4));
      String metadata = FileSystems.child(FileSystems.child(jobDir, name), METADATA_FILE);
      if (!fs.exists(metadata)) {
        continue;
      }
      try {
        CompletedCheckpoint checkpoint = CheckpointLayout.readMetadata(fs, metadata);
        String problem =
            checkpoint.checkpointId() != id
                ? fs.toUri(metadata) + " holds checkpoint " + checkpoint.checkpointId()
                : CheckpointLayout.firstMissingFile(files, checkpoint);
        if (problem == null) {
          retained.add(checkpoint);
        } else {
          problems.add(name + " skipped: " + problem);
        }
      } catch (IOException e) {
        problems.add(name + " skipped: " + e.getMessage());
      }
    }
    return retained;
  }

  @Override
  public String toString() {
    return "FileSystemCheckpointStorage[" + jobDirectory() + "]";
  }

  /** A new state file of checkpoint {@code checkpointId}, relative to the job directory. */
  private static String newFile(long checkpointId) {
    return checkpointDirName(checkpointId) + "/" + UUID.randomUUID();
  }

  private String checkpointDir(long checkpointId) {
    return FileSystems.child(jobDir, checkpointDirName(checkpointId));
  }

  private void createLayout() throws IOException {
    if (!layoutCreated) {
      fs.mkdirs(FileSystems.child(jobDir, SHARED_DIR));
      layoutCreated = true;
    }
  }

  private static String checkJobId(String jobId) {
    if (jobId == null
        || jobId.isEmpty()
        || StateFiles.UNSAFE_PATH.matcher(jobId).find()
        || jobId.contains("/")) {
      throw new IllegalArgumentException(
          "The job id '" + jobId + "' cannot name a checkpoint directory");
    }
    return jobId;
  }
}
