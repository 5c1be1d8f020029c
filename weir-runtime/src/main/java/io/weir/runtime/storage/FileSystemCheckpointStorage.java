package io.weir.runtime.storage;

import io.weir.runtime.checkpoint.CompletedCheckpoint;
import io.weir.runtime.checkpoint.OperatorState;
import io.weir.runtime.checkpoint.OperatorSubtaskState;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.CRC32;
import java.util.zip.CheckedInputStream;

/**
 * Checkpoints in a directory of a {@link FileSystem}, laid out per job as
 *
 * <pre>
 * &lt;base&gt;/&lt;job-id&gt;/chk-&lt;n&gt;/_metadata     the checkpoint's metadata, written last
 * &lt;base&gt;/&lt;job-id&gt;/chk-&lt;n&gt;/&lt;uuid&gt;        state files of checkpoint n
 * &lt;base&gt;/&lt;job-id&gt;/shared/                 state shared by checkpoints (incremental)
 * </pre>
 *
 * State of at most {@code inlineThresholdBytes} is kept inline in the metadata; larger state goes
 * to a file of its own. Every handle records the CRC-32 of its bytes, verified on read. The
 * metadata is written to {@code _metadata.inprogress} and renamed to {@code _metadata}, so a
 * checkpoint directory without {@code _metadata} never completed and is ignored.
 *
 * <p>Paths in handles are relative to the job directory, so a job directory (or a single {@code
 * chk-<n>} directory) can be copied or moved and restored from its new place: {@link
 * #loadFromPath(String)} reads a checkpoint wherever it is now and returns it with a read-only
 * storage that resolves its handles there. A job that resumes from such a checkpoint therefore uses
 * two storages: the returned one to read the state it restores, and its own (a new {@code
 * FileSystemCheckpointStorage} for its own job id) for the checkpoints it takes.
 *
 * <p>Thread-safe: holds no mutable state besides the file system's.
 */
public final class FileSystemCheckpointStorage implements CheckpointStorage {

  /** The name of a completed checkpoint's metadata file in its {@code chk-<n>} directory. */
  public static final String METADATA_FILE = "_metadata";

  static final String IN_PROGRESS_SUFFIX = ".inprogress";
  static final String SHARED_DIR = "shared";

  static final Pattern CHECKPOINT_DIR = Pattern.compile("chk-(\\d{1,18})");

  /** A file in {@code shared/}: the checkpoint that uploaded it, a dash, a UUID. */
  static final Pattern SHARED_FILE = Pattern.compile("(\\d{1,18})-[0-9a-f-]{36}");

  /** Leading or trailing '/', empty, '.' or '..' segments, backslashes: would leave the job dir. */
  private static final Pattern UNSAFE_PATH = Pattern.compile("^$|^/|//|/$|(^|/)\\.\\.?(/|$)|\\\\");

  private final FileSystem fs;
  private final String jobDir;
  private final int inlineThresholdBytes;

  /** Set when this storage only reads a checkpoint loaded from a path a user gave. */
  private final Loaded loaded;

  /** Set when this storage writes the state of one savepoint into the savepoint's directory. */
  private final SavepointTarget target;

  private volatile boolean layoutCreated;

  /**
   * Storage for the checkpoints of job {@code jobId} under {@code baseDir}. Touches the file system
   * only when a checkpoint is written or read.
   *
   * @param baseDir a {@code file:} URI or, without scheme, a local path
   * @param jobId the job, as 32 hex digits; the name of its directory
   * @param inlineThresholdBytes state of at most this many bytes is kept inline in the metadata
   * @throws IllegalArgumentException for an unsupported scheme, a job id that is no directory name,
   *     or a negative threshold
   */
  public FileSystemCheckpointStorage(URI baseDir, String jobId, int inlineThresholdBytes) {
    this(
        FileSystems.get(baseDir),
        FileSystems.child(FileSystems.pathOf(baseDir), checkJobId(jobId)),
        checkThreshold(inlineThresholdBytes),
        null,
        null);
  }

  private FileSystemCheckpointStorage(
      FileSystem fs,
      String jobDir,
      int inlineThresholdBytes,
      Loaded loaded,
      SavepointTarget target) {
    this.fs = fs;
    this.jobDir = jobDir;
    this.inlineThresholdBytes = inlineThresholdBytes;
    this.loaded = loaded;
    this.target = target;
  }

  /**
   * The storage the tasks write the state of savepoint {@code checkpointId} to: its files go
   * straight into {@code savepointDir}, the savepoint's own directory, and their handles name them
   * {@code chk-<n>/<name>}, which {@link #loadFromPath} resolves against the directory the
   * savepoint's {@code _metadata} is in. Nothing goes to a job's checkpoint directory; state of at
   * most {@code inlineThresholdBytes} stays inline. Touches the file system only when state is
   * written (the directory is created with its first file).
   *
   * @param savepointDir a {@code file:} URI or another scheme's, or a local path
   */
  static FileSystemCheckpointStorage savepointTarget(
      String savepointDir, long checkpointId, int inlineThresholdBytes) {
    URI uri = FileSystems.toUri(savepointDir);
    FileSystem fs = FileSystems.get(uri);
    String dir = FileSystems.pathOf(uri);
    return new FileSystemCheckpointStorage(
        fs,
        Objects.requireNonNullElse(FileSystems.parent(dir), dir),
        checkThreshold(inlineThresholdBytes),
        null,
        new SavepointTarget(checkpointId, dir));
  }

  @Override
  public int savepointInlineThresholdBytes() {
    return inlineThresholdBytes;
  }

  /**
   * Loads the completed checkpoint a user pointed to, to resume a job from it.
   *
   * @param pathOrUri a checkpoint's {@code chk-<n>} directory or its {@code _metadata} file, as a
   *     URI or a local path; the external pointer {@link #commitCheckpoint} returned works
   * @return the verified checkpoint and a read-only storage that reads its state from where it is
   *     now: files are resolved against the directory that holds the {@code chk-<n>} directory, and
   *     the checkpoint's own files against its directory even if it was renamed
   * @throws FileNotFoundException if nothing is at the path
   * @throws IOException naming the path if it holds no completed Weir checkpoint, its metadata is
   *     corrupt or too new, or a state file it references is missing
   * @throws IllegalArgumentException for an unsupported URI scheme
   */
  public static RetainedCheckpoint loadFromPath(String pathOrUri) throws IOException {
    RetainedCheckpoint retained = readFromPath(pathOrUri);
    String missing =
        ((FileSystemCheckpointStorage) retained.storage()).firstMissingFile(retained.checkpoint());
    if (missing != null) {
      throw new IOException("Cannot restore from " + pathOrUri + ": " + missing);
    }
    return retained;
  }

  /**
   * Reads the metadata of the checkpoint at {@code pathOrUri} as {@link #loadFromPath} does, but
   * does not check that its state files exist: for tools that report every problem of a checkpoint
   * ({@code weir verify}, {@code weir inspect}) rather than the first. A state file that is missing
   * fails {@link #verifyState} and {@link #readState} naming it.
   *
   * @throws FileNotFoundException if nothing is at the path
   * @throws IOException naming the path if it holds no completed Weir checkpoint, or its metadata
   *     is corrupt or too new
   */
  public static RetainedCheckpoint readFromPath(String pathOrUri) throws IOException {
    URI uri = FileSystems.toUri(pathOrUri);
    FileSystem fs = FileSystems.get(uri);
    String path = FileSystems.pathOf(uri);
    if (!fs.exists(path)) {
      throw new FileNotFoundException(
          "Cannot restore from " + pathOrUri + ": " + fs.toUri(path) + " does not exist");
    }
    String checkpointDir;
    String metadata;
    if (FileSystems.name(path).equals(METADATA_FILE) || !isDirectory(fs, path)) {
      metadata = path; // a metadata file, perhaps renamed: its magic number tells
      checkpointDir = Objects.requireNonNullElse(FileSystems.parent(path), "/");
    } else {
      checkpointDir = path;
      metadata = FileSystems.child(path, METADATA_FILE);
      if (!fs.exists(metadata)) {
        throw new IOException(notACheckpoint(fs, pathOrUri, path));
      }
    }
    CompletedCheckpoint checkpoint = readMetadata(fs, metadata);
    String jobDir = Objects.requireNonNullElse(FileSystems.parent(checkpointDir), checkpointDir);
    FileSystemCheckpointStorage storage =
        new FileSystemCheckpointStorage(fs, jobDir, 0, new Loaded(checkpoint, checkpointDir), null);
    return new RetainedCheckpoint(checkpoint, fs.toUri(checkpointDir).toString(), storage);
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
   * or {@code _metadata} file (as {@link #loadFromPath}), or a job's checkpoint directory, whose
   * completed checkpoints are all returned, newest first, each with a read-only storage. A {@code
   * chk-<n>} without {@code _metadata} never completed and is passed over silently.
   *
   * @throws IOException naming the path if it holds no completed Weir checkpoint
   */
  public static RestoreCandidates loadRestoreCandidates(String pathOrUri) throws IOException {
    URI uri = FileSystems.toUri(pathOrUri);
    FileSystem fs = FileSystems.get(uri);
    String path = FileSystems.pathOf(uri);
    if (!fs.exists(path)
        || FileSystems.name(path).equals(METADATA_FILE)
        || !isDirectory(fs, path)
        || fs.exists(FileSystems.child(path, METADATA_FILE))
        || !hasCheckpointDirectories(fs, path)) {
      return new RestoreCandidates(List.of(loadFromPath(pathOrUri)), List.of(), false);
    }
    List<RetainedCheckpoint> checkpoints = new ArrayList<>();
    List<String> skipped = new ArrayList<>();
    for (String name : checkpointDirectoriesNewestFirst(fs, path)) {
      String dir = FileSystems.child(path, name);
      if (!fs.exists(FileSystems.child(dir, METADATA_FILE))) {
        continue; // never completed
      }
      try {
        checkpoints.add(loadFromPath(fs.toUri(dir).toString()));
      } catch (IOException | RuntimeException e) {
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

  private static boolean hasCheckpointDirectories(FileSystem fs, String dir) throws IOException {
    return !checkpointDirectoriesNewestFirst(fs, dir).isEmpty();
  }

  /** The {@code chk-<n>} entries of {@code dir}, highest {@code n} first. */
  private static List<String> checkpointDirectoriesNewestFirst(FileSystem fs, String dir)
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

  /**
   * For a storage returned by {@link #loadFromPath}: the URI of the checkpoint directory it reads,
   * which {@link #loadFromPath} turns back into the same storage in another process; otherwise
   * null.
   */
  public String loadedCheckpointUri() {
    return loaded == null ? null : fs.toUri(loaded.checkpointDir()).toString();
  }

  /** The job's directory: {@code <base>/<job-id>}, or where a loaded checkpoint lives. */
  public URI jobDirectory() {
    return fs.toUri(jobDir);
  }

  /** The directory of checkpoint {@code checkpointId}: its external pointer once committed. */
  public URI checkpointDirectory(long checkpointId) {
    return fs.toUri(checkpointDir(checkpointId));
  }

  /** State of at most this many bytes is kept inline in the metadata. */
  public int inlineThresholdBytes() {
    return inlineThresholdBytes;
  }

  @Override
  public StreamStateHandle writeState(long checkpointId, byte[] data, String description)
      throws IOException {
    requireWritable("write state " + description);
    if (data.length <= inlineThresholdBytes) {
      return InlineState.of(data);
    }
    return writeState(checkpointId, description, out -> out.write(data));
  }

  @Override
  public byte[] readState(StreamStateHandle handle) throws IOException {
    Objects.requireNonNull(handle, "handle");
    if (handle instanceof StreamStateHandle.Inline inline) {
      return InlineState.read(inline);
    }
    StreamStateHandle.File file = (StreamStateHandle.File) handle;
    String path = resolve(file.relativePath());
    String what = describe(file, path);
    if (file.size() < 0 || file.size() > Integer.MAX_VALUE - 16) {
      throw new IOException(what + " has an impossible size in the metadata: " + file.size());
    }
    byte[] data;
    try (InputStream in = fs.open(path)) {
      // One byte more than expected, to notice a file that grew.
      data = in.readNBytes((int) file.size() + 1);
    } catch (FileNotFoundException e) {
      throw new IOException(what + " is missing", e);
    }
    verify(what, file, data.length, MetadataSerializer.crc32(data, 0, data.length));
    return data;
  }

  @Override
  public StreamStateHandle writeState(long checkpointId, String description, StateWriter writer)
      throws IOException {
    return write(
        checkpointId,
        checkpointDirName(checkpointId) + "/" + UUID.randomUUID(),
        description,
        writer);
  }

  /** Writes a new file at {@code relativePath} in the job directory, counting and checksumming. */
  private StreamStateHandle write(
      long checkpointId, String relativePath, String description, StateWriter writer)
      throws IOException {
    requireWritable("write state " + description);
    if (target != null && checkpointId != target.checkpointId()) {
      throw new IllegalStateException(
          "The storage of savepoint "
              + target.checkpointId()
              + " at "
              + fs.toUri(target.dir())
              + " cannot hold state of checkpoint "
              + checkpointId);
    }
    String path = resolve(relativePath);
    CRC32 crc = new CRC32();
    long size;
    try (OutputStream file = fs.create(path, false);
        CountingCheckedOutputStream out = new CountingCheckedOutputStream(file, crc)) {
      writer.writeTo(out);
      out.flush();
      size = out.count;
    } catch (IOException e) {
      throw new IOException(
          "Could not write state "
              + description
              + " of checkpoint "
              + checkpointId
              + " to "
              + fs.toUri(path)
              + ": "
              + e,
          e);
    }
    return new StreamStateHandle.File(relativePath, size, (int) crc.getValue());
  }

  /** Counts and checksums what passes through, buffered. */
  private static final class CountingCheckedOutputStream extends java.io.FilterOutputStream {
    private final CRC32 crc;
    long count;

    CountingCheckedOutputStream(OutputStream out, CRC32 crc) {
      super(new java.io.BufferedOutputStream(out, 256 * 1024));
      this.crc = crc;
    }

    @Override
    public void write(int b) throws IOException {
      out.write(b);
      crc.update(b);
      count++;
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
      out.write(b, off, len);
      crc.update(b, off, len);
      count += len;
    }
  }

  @Override
  public StreamStateHandle writeSharedFile(long checkpointId, Path file, String description)
      throws IOException {
    requireWritable("write state " + description);
    if (target != null) {
      return writeFile(checkpointId, file, description); // a savepoint shares nothing
    }
    createLayout();
    return write(
        checkpointId,
        SHARED_DIR + "/" + checkpointId + "-" + UUID.randomUUID(),
        description,
        out -> Files.copy(file, out));
  }

  @Override
  public StreamStateHandle writeFile(long checkpointId, Path file, String description)
      throws IOException {
    return write(
        checkpointId,
        checkpointDirName(checkpointId) + "/" + UUID.randomUUID(),
        description,
        out -> Files.copy(file, out));
  }

  @Override
  public void readStateToFile(StreamStateHandle handle, Path target) throws IOException {
    if (handle instanceof StreamStateHandle.Inline inline) {
      Files.write(target, InlineState.read(inline), StandardOpenOption.CREATE_NEW);
      return;
    }
    try (OutputStream out = Files.newOutputStream(target, StandardOpenOption.CREATE_NEW)) {
      copyVerified((StreamStateHandle.File) handle, out);
    }
  }

  @Override
  public void verifyState(StreamStateHandle handle) throws IOException {
    if (handle instanceof StreamStateHandle.Inline inline) {
      InlineState.read(inline);
      return;
    }
    copyVerified((StreamStateHandle.File) handle, OutputStream.nullOutputStream());
  }

  /** Streams the file behind {@code file} into {@code out}, then checks its size and checksum. */
  private void copyVerified(StreamStateHandle.File file, OutputStream out) throws IOException {
    String path = resolve(file.relativePath());
    String what = describe(file, path);
    CRC32 crc = new CRC32();
    long size;
    try (InputStream in = new CheckedInputStream(fs.open(path), crc)) {
      size = in.transferTo(out);
    } catch (FileNotFoundException | java.nio.file.NoSuchFileException e) {
      throw new IOException(what + " is missing", e);
    }
    verify(what, file, size, (int) crc.getValue());
  }

  @Override
  public void discardSharedState(StreamStateHandle handle) throws IOException {
    if (handle instanceof StreamStateHandle.File file && loaded == null && target == null) {
      fs.delete(resolve(file.relativePath()), false);
    }
  }

  @Override
  public void discardUnreferencedSharedState(Set<String> referenced, long upToCheckpointId)
      throws IOException {
    if (loaded != null || target != null || !layoutCreated) {
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

  /**
   * Deletes the orphans of the job directory (see {@link CheckpointDirectoryScan}); a storage that
   * reads a checkpoint a job resumed from never deletes anything of it.
   */
  @Override
  public void discardOrphanedState(boolean nothingInProgress) throws IOException {
    if (loaded == null && target == null) {
      CheckpointDirectoryScan.cleanUp(fs, jobDir, nothingInProgress);
    }
  }

  private String describe(StreamStateHandle.File file, String path) {
    return "State file " + file.relativePath() + " (" + fs.toUri(path) + ")";
  }

  /** Fails naming the file if what was read is not what the handle recorded. */
  private static void verify(String what, StreamStateHandle.File file, long size, int crc)
      throws IOException {
    if (size != file.size()) {
      throw new IOException(
          what
              + " is corrupt ("
              + (size > file.size() ? "more than " + file.size() : size)
              + " bytes, expected "
              + file.size()
              + ")");
    }
    if (crc != file.crc32()) {
      throw new IOException(
          what
              + " is corrupt (checksum mismatch: expected "
              + MetadataSerializer.hex(file.crc32())
              + ", computed "
              + MetadataSerializer.hex(crc)
              + ")");
    }
  }

  /**
   * Writes {@code chk-<n>/_metadata.inprogress}, then renames it to {@code _metadata}; on a file
   * system without atomic rename (an object store) writes {@code _metadata} directly, last.
   *
   * @return the checkpoint directory's URI, which {@link #loadFromPath} accepts
   */
  @Override
  public String commitCheckpoint(CompletedCheckpoint checkpoint) throws IOException {
    requireWritable("commit checkpoint " + checkpoint.checkpointId());
    requireJobStorage("commit checkpoint " + checkpoint.checkpointId());
    createLayout();
    String dir = checkpointDir(checkpoint.checkpointId());
    String metadata = FileSystems.child(dir, METADATA_FILE);
    String inProgress = metadata + IN_PROGRESS_SUFFIX;
    byte[] bytes = MetadataSerializer.serialize(checkpoint);
    if (!fs.hasAtomicRename()) {
      // An object store: a new object becomes visible only complete, so _metadata is written last,
      // under its final name; a rename would be a copy that a reader could see half done.
      try (OutputStream out = fs.create(metadata, false)) {
        out.write(bytes);
      } catch (FileAlreadyExistsException e) {
        throw new IOException(
            "Checkpoint "
                + checkpoint.checkpointId()
                + " is already committed at "
                + fs.toUri(metadata)
                + "; a checkpoint id is never reused",
            e);
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
      throw new IOException(
          "Checkpoint "
              + checkpoint.checkpointId()
              + " is already committed at "
              + fs.toUri(metadata)
              + "; a checkpoint id is never reused",
          e);
    }
    return fs.toUri(dir).toString();
  }

  /**
   * Deletes {@code chk-<n>}: its {@code _metadata} first, then the state files. A crash in between
   * leaves a directory without metadata, which is ignored like an incomplete checkpoint, never a
   * checkpoint whose metadata promises files that are gone.
   */
  @Override
  public void discardCheckpoint(long checkpointId) throws IOException {
    requireWritable("discard checkpoint " + checkpointId);
    requireJobStorage("discard checkpoint " + checkpointId);
    String dir = checkpointDir(checkpointId);
    fs.delete(FileSystems.child(dir, METADATA_FILE), false);
    fs.delete(dir, true);
  }

  /**
   * The completed checkpoints in the job directory, newest first. Each one's metadata is verified
   * and each state file it references must exist (their checksums are verified when read). A {@code
   * chk-<n>} directory without {@code _metadata} never completed and is passed over silently; one
   * that is unreadable or inconsistent adds a line to {@code problems}.
   *
   * <p>For a storage returned by {@link #loadFromPath}: just the checkpoint loaded.
   */
  @Override
  public List<CompletedCheckpoint> loadRetained(List<String> problems) throws IOException {
    if (loaded != null) {
      return List.of(loaded.checkpoint());
    }
    if (target != null || !fs.exists(jobDir)) {
      return List.of();
    }
    List<CompletedCheckpoint> retained = new ArrayList<>();
    for (String name : checkpointDirectoriesNewestFirst(fs, jobDir)) {
      long id = Long.parseLong(name.substring(4));
      String metadata = FileSystems.child(FileSystems.child(jobDir, name), METADATA_FILE);
      if (!fs.exists(metadata)) {
        continue;
      }
      try {
        CompletedCheckpoint checkpoint = readMetadata(fs, metadata);
        String problem =
            checkpoint.checkpointId() != id
                ? fs.toUri(metadata) + " holds checkpoint " + checkpoint.checkpointId()
                : firstMissingFile(checkpoint);
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
    if (target != null) {
      return "FileSystemCheckpointStorage[savepoint " + fs.toUri(target.dir()) + "]";
    }
    return "FileSystemCheckpointStorage["
        + jobDirectory()
        + (loaded != null ? ", read-only]" : "]");
  }

  static CompletedCheckpoint readMetadata(FileSystem fs, String path) throws IOException {
    byte[] bytes;
    try (InputStream in = fs.open(path)) {
      bytes = in.readAllBytes();
    }
    return MetadataSerializer.deserialize(bytes, fs.toUri(path).toString());
  }

  /** What is wrong with the files {@code checkpoint} references, or null if they all exist. */
  private String firstMissingFile(CompletedCheckpoint checkpoint) throws IOException {
    for (OperatorState operator : checkpoint.operators()) {
      for (OperatorSubtaskState subtask : operator.subtasks()) {
        for (StreamStateHandle handle : subtask.handles()) {
          if (handle instanceof StreamStateHandle.File file) {
            String path;
            try {
              path = resolve(file.relativePath());
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

  /** Where a handle's file is now. */
  private String resolve(String relativePath) throws IOException {
    if (relativePath == null || UNSAFE_PATH.matcher(relativePath).find()) {
      throw new IOException(
          "State file path '" + relativePath + "' is not a path inside the job directory");
    }
    if (loaded != null) {
      // The checkpoint's own files live in its directory, whatever that directory is called now.
      String own = checkpointDirName(loaded.checkpoint().checkpointId()) + "/";
      if (relativePath.startsWith(own)) {
        return FileSystems.child(loaded.checkpointDir(), relativePath.substring(own.length()));
      }
    }
    if (target != null) {
      String own = checkpointDirName(target.checkpointId()) + "/";
      if (!relativePath.startsWith(own)) {
        throw new IOException(
            "State file path '"
                + relativePath
                + "' is not a file of savepoint "
                + target.checkpointId()
                + " ("
                + fs.toUri(target.dir())
                + ")");
      }
      return FileSystems.child(target.dir(), relativePath.substring(own.length()));
    }
    return FileSystems.child(jobDir, relativePath);
  }

  private String checkpointDir(long checkpointId) {
    return FileSystems.child(jobDir, checkpointDirName(checkpointId));
  }

  private static String checkpointDirName(long checkpointId) {
    return "chk-" + checkpointId;
  }

  private void createLayout() throws IOException {
    if (!layoutCreated) {
      fs.mkdirs(FileSystems.child(jobDir, SHARED_DIR));
      layoutCreated = true;
    }
  }

  /**
   * For a storage returned by {@link #loadFromPath}, of a checkpoint a job restored in {@code
   * CLAIM} mode and no longer needs: deletes the checkpoint — its {@code _metadata} first, then its
   * own files and the shared files it refers to. Refused for a savepoint (Weir never deletes one)
   * and for a storage that did not load a checkpoint.
   */
  public void discardLoadedCheckpoint() throws IOException {
    if (loaded == null) {
      throw new UnsupportedOperationException(
          "Only a loaded checkpoint can be discarded, not the storage of job directory "
              + fs.toUri(jobDir));
    }
    if (loaded.checkpoint().savepoint()) {
      throw new UnsupportedOperationException(
          "Savepoint " + fs.toUri(loaded.checkpointDir()) + " is never deleted by Weir");
    }
    List<String> shared = new ArrayList<>();
    for (OperatorState operator : loaded.checkpoint().operators()) {
      for (OperatorSubtaskState subtask : operator.subtasks()) {
        for (StreamStateHandle handle : subtask.handles()) {
          if (handle instanceof StreamStateHandle.File file
              && file.relativePath().startsWith(SHARED_DIR + "/")) {
            shared.add(resolve(file.relativePath()));
          }
        }
      }
    }
    fs.delete(FileSystems.child(loaded.checkpointDir(), METADATA_FILE), false);
    fs.delete(loaded.checkpointDir(), true);
    if (!shared.isEmpty()) {
      fs.deleteFiles(shared);
    }
  }

  /** A savepoint's storage writes its state; its metadata is {@link Savepoints#write}'s. */
  private void requireJobStorage(String action) {
    if (target != null) {
      throw new UnsupportedOperationException(
          "Cannot "
              + action
              + ": the storage of savepoint "
              + target.checkpointId()
              + " at "
              + fs.toUri(target.dir())
              + " only holds the state its tasks write");
    }
  }

  private void requireWritable(String action) {
    if (loaded != null) {
      throw new UnsupportedOperationException(
          "Cannot "
              + action
              + ": the storage of checkpoint "
              + fs.toUri(loaded.checkpointDir())
              + " only reads it, so that restoring never changes it. The restoring job writes"
              + " its checkpoints to its own storage.");
    }
  }

  private static boolean isDirectory(FileSystem fs, String path) {
    try {
      fs.list(path);
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  /** True when {@code checkpointDir} holds metadata that reads back and verifies. */
  private static boolean hasIntactMetadata(FileSystem fs, String checkpointDir) {
    try {
      String metadata = FileSystems.child(checkpointDir, METADATA_FILE);
      return fs.exists(metadata) && readMetadata(fs, metadata) != null;
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

  private static String checkJobId(String jobId) {
    if (jobId == null
        || jobId.isEmpty()
        || UNSAFE_PATH.matcher(jobId).find()
        || jobId.contains("/")) {
      throw new IllegalArgumentException(
          "The job id '" + jobId + "' cannot name a checkpoint directory");
    }
    return jobId;
  }

  private static int checkThreshold(int inlineThresholdBytes) {
    if (inlineThresholdBytes < 0) {
      throw new IllegalArgumentException(
          "The inline threshold cannot be negative: " + inlineThresholdBytes);
    }
    return inlineThresholdBytes;
  }

  /** A checkpoint loaded from a user-given path, and the directory it was found in. */
  private record Loaded(CompletedCheckpoint checkpoint, String checkpointDir) {}

  /** The savepoint whose state this storage writes, and its own directory. */
  private record SavepointTarget(long checkpointId, String dir) {}
}
