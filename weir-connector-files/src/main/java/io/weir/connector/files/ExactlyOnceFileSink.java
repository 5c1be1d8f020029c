package io.weir.connector.files;

import io.weir.api.sink.SinkWriter;
import io.weir.api.sink.TwoPhaseCommitSink;
import io.weir.api.sink.WriterInitContext;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.HexFormat;
import java.util.Objects;
import java.util.UUID;

/**
 * Lines into part files, committed by renaming: see {@link FileSink#exactlyOnce}.
 *
 * <p>A part file is named {@code part-<subtask>-<attempt>-<run>-<n>}. The first transaction begins
 * in {@code initializeState}, before the writer tells the subtask and attempt, so it is named on
 * its first line; every later one begins in {@code snapshotState} and is named at once, which
 * matters: a checkpoint records the name of the transaction that was current, and a restore aborts
 * it by that name, deleting the lines written after the checkpoint.
 */
final class ExactlyOnceFileSink extends TwoPhaseCommitSink<String, PartFile> {
  private static final long serialVersionUID = 1L;

  private static final String IN_PROGRESS_PREFIX = ".";
  private static final String IN_PROGRESS_SUFFIX = ".inprogress";
  private static final int WRITE_BUFFER_CHARS = 64 * 1024;

  /** A string, since {@link Path} is not serializable. */
  private final String directory;

  private transient Path directoryPath;

  /** Random per subtask and start, so names never repeat across restores, reruns and jobs. */
  private transient String run;

  private transient long nextSequence;
  private transient boolean directoryCreated;

  ExactlyOnceFileSink(String directory) {
    super(new PartFile.Serializer());
    this.directory = Objects.requireNonNull(directory, "directory");
  }

  @Override
  protected PartFile beginTransaction() {
    PartFile file = new PartFile(null, false);
    writerContext().ifPresent(context -> file.name = nextName(context));
    return file;
  }

  @Override
  protected void invoke(PartFile file, String line, SinkWriter.Context context) throws IOException {
    if (line == null) {
      throw new NullPointerException("The file sink into " + directory + " got a null line");
    }
    if (file.out == null) {
      open(file);
    }
    file.out.write(line);
    file.out.write('\n');
  }

  @Override
  protected void preCommit(PartFile file) throws IOException {
    if (file.out != null) {
      file.out.flush();
      file.channel.force(true);
      file.out.close();
      file.out = null;
      file.channel = null;
      syncDirectory(); // the new file's entry must survive a crash too
    }
  }

  @Override
  protected void commit(PartFile file) throws IOException {
    if (!file.hasData) {
      return;
    }
    Path source = inProgressPath(file.name);
    Path target = dir().resolve(file.name);
    if (Files.exists(target)) {
      if (Files.exists(source)) {
        throw new FileAlreadyExistsException(
            target.toString(),
            source.toString(),
            "Cannot commit the part file: the committed name is taken by another file; give"
                + " every file sink its own directory");
      }
      return; // committed before a failure or by an earlier notification
    }
    try {
      // Without REPLACE_EXISTING; the check above keeps an existing target from being replaced.
      Files.move(source, target, StandardCopyOption.ATOMIC_MOVE);
    } catch (NoSuchFileException e) {
      if (Files.exists(target)) {
        return;
      }
      throw new IOException(
          "Cannot commit the part file: neither the in-progress file "
              + source
              + " nor the committed file "
              + target
              + " exists. Was it deleted, or was the job restored from a checkpoint of a sink"
              + " writing into another directory?",
          e);
    }
    syncDirectory();
  }

  @Override
  protected void abort(PartFile file) throws IOException {
    try {
      if (file.out != null) {
        file.out.close();
      }
    } finally {
      file.out = null;
      file.channel = null;
      if (file.name != null) {
        Files.deleteIfExists(inProgressPath(file.name));
      }
    }
  }

  private void open(PartFile file) throws IOException {
    if (file.name == null) {
      // The first transaction: the writer exists now, since lines come through it.
      file.name =
          nextName(
              writerContext()
                  .orElseThrow(() -> new IllegalStateException("createWriter was not called")));
    }
    if (!directoryCreated) {
      Files.createDirectories(dir());
      directoryCreated = true;
    }
    FileChannel channel =
        FileChannel.open(
            inProgressPath(file.name), StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
    file.channel = channel;
    file.out =
        new BufferedWriter(
            new OutputStreamWriter(Channels.newOutputStream(channel), StandardCharsets.UTF_8),
            WRITE_BUFFER_CHARS);
    file.hasData = true;
  }

  private String nextName(WriterInitContext context) {
    if (run == null) {
      run = HexFormat.of().toHexDigits(UUID.randomUUID().getLeastSignificantBits());
    }
    return "part-"
        + context.subtaskIndex()
        + "-"
        + context.attemptNumber()
        + "-"
        + run
        + "-"
        + nextSequence++;
  }

  private Path inProgressPath(String name) {
    return dir().resolve(IN_PROGRESS_PREFIX + name + IN_PROGRESS_SUFFIX);
  }

  private Path dir() {
    if (directoryPath == null) {
      directoryPath = Path.of(directory);
    }
    return directoryPath;
  }

  /** Makes created and renamed entries durable; best effort where directories cannot be synced. */
  private void syncDirectory() {
    try (FileChannel channel = FileChannel.open(dir(), StandardOpenOption.READ)) {
      channel.force(true);
    } catch (IOException e) {
      // Some platforms (Windows) cannot open a directory; renames there are durable on their own.
    }
  }
}
