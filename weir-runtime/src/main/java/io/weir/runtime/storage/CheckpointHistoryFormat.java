package io.weir.runtime.storage;

import io.weir.api.CheckpointStatistics;
import io.weir.api.CheckpointStatistics.SinkCommit;
import io.weir.api.CheckpointStatistics.SubtaskCheckpointStatistics;
import io.weir.api.config.Configuration;
import io.weir.runtime.checkpoint.CheckpointHistory;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The file {@value #FILE} beside a checkpoint's (or savepoint's) {@code _metadata}: the {@link
 * CheckpointHistory} as the coordinator knew it when that checkpoint completed, the checkpoint
 * itself last. A restore never reads it; a corrupt or missing one costs only the history.
 *
 * <p>The newest checkpoints keep every subtask's figures — at most {@value #FULL_DETAIL} of them,
 * and no more than {@value #SUBTASK_BUDGET} subtask entries in all, but always the newest one;
 * older ones keep one aggregate per vertex (subtask index -1: the largest duration of each phase,
 * the sums of sizes and files, the longest sink commit). The file grows with the history's length
 * and the job's vertices, not with its parallelism beyond the newest checkpoint.
 */
public final class CheckpointHistoryFormat {

  /** The file's name in a {@code chk-<n>} or savepoint directory. */
  public static final String FILE = "_history";

  /** How many of the newest checkpoints keep their per-subtask figures, at most. */
  public static final int FULL_DETAIL = 10;

  /**
   * How many subtask entries the checkpoints with full detail may hold together (the newest one is
   * kept whole regardless): a wide job keeps fewer of them.
   */
  public static final int SUBTASK_BUDGET = 2_000;

  private static final int MAGIC = 0x57484953; // "WHIS"

  /**
   * 2 adds each subtask's files written and its sink commit after the completion; 3 the upstream
   * subtask whose barrier ended its alignment. Versions 1 and 2 are still read (files unknown, no
   * commit; no last barrier).
   */
  private static final int VERSION = 3;

  private static final int MAX_ENTRIES = 1 << 20;

  private CheckpointHistoryFormat() {}

  /**
   * Writes {@code history} beside the metadata of the checkpoint or savepoint at {@code pointer}.
   */
  public static void write(String pointer, CheckpointHistory history, Configuration conf)
      throws IOException {
    URI uri = FileSystems.toUri(pointer);
    FileSystem fs = FileSystems.get(uri, conf);
    String file = FileSystems.child(FileSystems.pathOf(uri), FILE);
    try (OutputStream out = fs.create(file, true)) {
      out.write(serialize(history));
    } catch (FileAlreadyExistsException e) {
      throw new IOException("Cannot replace " + fs.toUri(file), e);
    }
  }

  /**
   * The history beside the checkpoint or savepoint at {@code pointer}, or {@link
   * CheckpointHistory#EMPTY} when it has none (written before Weir kept one).
   *
   * @throws IOException naming the file, when it is there but unreadable
   */
  public static CheckpointHistory read(String pointer, Configuration conf) throws IOException {
    URI uri = FileSystems.toUri(pointer);
    return read(FileSystems.get(uri, conf), uri);
  }

  /**
   * As {@link #read(String, Configuration)}, through {@code fs}, beside the directory {@code uri}.
   */
  public static CheckpointHistory read(FileSystem fs, URI uri) throws IOException {
    String file = FileSystems.child(FileSystems.pathOf(uri), FILE);
    if (!fs.exists(file)) {
      return CheckpointHistory.EMPTY;
    }
    byte[] bytes;
    try (InputStream in = fs.open(file)) {
      bytes = in.readAllBytes();
    }
    try {
      return deserialize(bytes);
    } catch (IOException e) {
      throw new IOException(
          "The checkpoint history " + fs.toUri(file) + " is unreadable: " + e.getMessage(), e);
    }
  }

  /** The file's bytes, the older checkpoints compacted to one entry per vertex. */
  public static byte[] serialize(CheckpointHistory history) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      out.writeInt(MAGIC);
      out.writeInt(VERSION);
      out.writeLong(history.completed());
      out.writeLong(history.failed());
      List<CheckpointStatistics> checkpoints = history.checkpoints();
      int full = withFullDetail(checkpoints);
      out.writeInt(checkpoints.size());
      for (int i = 0; i < checkpoints.size(); i++) {
        CheckpointStatistics c = checkpoints.get(i);
        writeCheckpoint(
            out, c, i >= checkpoints.size() - full ? c.subtasks() : perVertex(c.subtasks()));
      }
    } catch (IOException e) {
      throw new IllegalStateException("writing to memory cannot fail", e);
    }
    return bytes.toByteArray();
  }

  /** Reads what {@link #serialize} wrote. */
  public static CheckpointHistory deserialize(byte[] bytes) throws IOException {
    try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes))) {
      if (in.readInt() != MAGIC) {
        throw new IOException("not a checkpoint history file (wrong magic number)");
      }
      int version = in.readInt();
      if (version < 1 || version > VERSION) {
        throw new IOException(
            "written in format "
                + version
                + ", which this Weir does not read (it reads 1 to "
                + VERSION
                + ")");
      }
      long completed = in.readLong();
      long failed = in.readLong();
      int n = count(in);
      List<CheckpointStatistics> checkpoints = new ArrayList<>(n);
      for (int i = 0; i < n; i++) {
        checkpoints.add(readCheckpoint(in, version));
      }
      return new CheckpointHistory(completed, failed, checkpoints);
    } catch (EOFException e) {
      throw new IOException("truncated", e);
    }
  }

  /** How many of the newest of {@code checkpoints} keep every subtask (see the class's doc). */
  static int withFullDetail(List<CheckpointStatistics> checkpoints) {
    int full = 0;
    int entries = 0;
    for (int i = checkpoints.size() - 1; i >= 0 && full < FULL_DETAIL; i--) {
      entries += checkpoints.get(i).subtasks().size();
      if (full > 0 && entries > SUBTASK_BUDGET) {
        break;
      }
      full++;
    }
    return full;
  }

  /** One entry per vertex: the largest duration of each phase, sizes summed, the last ack. */
  static List<SubtaskCheckpointStatistics> perVertex(List<SubtaskCheckpointStatistics> subtasks) {
    Map<String, SubtaskCheckpointStatistics> byVertex = new LinkedHashMap<>();
    for (SubtaskCheckpointStatistics s : subtasks) {
      byVertex.merge(
          s.vertexIndex() + "/" + s.taskName(),
          new SubtaskCheckpointStatistics(
              s.taskName(),
              -1,
              s.startDelayMillis(),
              s.alignmentDurationMillis(),
              s.unaligned(),
              s.channelStateBytes(),
              s.syncDurationMillis(),
              s.asyncDurationMillis(),
              s.stateSizeBytes(),
              s.checkpointedSizeBytes(),
              s.vertexIndex(),
              s.ackTimestamp(),
              s.filesWritten(),
              s.commit(),
              s.lastBarrierFrom()),
          (a, b) ->
              new SubtaskCheckpointStatistics(
                  a.taskName(),
                  -1,
                  Math.max(a.startDelayMillis(), b.startDelayMillis()),
                  Math.max(a.alignmentDurationMillis(), b.alignmentDurationMillis()),
                  a.unaligned() || b.unaligned(),
                  a.channelStateBytes() + b.channelStateBytes(),
                  Math.max(a.syncDurationMillis(), b.syncDurationMillis()),
                  Math.max(a.asyncDurationMillis(), b.asyncDurationMillis()),
                  a.stateSizeBytes() + b.stateSizeBytes(),
                  a.checkpointedSizeBytes() + b.checkpointedSizeBytes(),
                  a.vertexIndex(),
                  Math.max(a.ackTimestamp(), b.ackTimestamp()),
                  a.filesWritten() < 0 || b.filesWritten() < 0
                      ? -1
                      : a.filesWritten() + b.filesWritten(),
                  longerCommit(a.commit(), b.commit()),
                  // the channel of the longest alignment: the one most worth looking at
                  b.alignmentDurationMillis() > a.alignmentDurationMillis()
                      ? b.lastBarrierFrom()
                      : a.lastBarrierFrom()));
    }
    return List.copyOf(byVertex.values());
  }

  /** Of two subtasks' commits, the longer, with a failure of either. */
  private static SinkCommit longerCommit(SinkCommit a, SinkCommit b) {
    if (a == null || b == null) {
      return a == null ? b : a;
    }
    SinkCommit longer = a.durationMillis() >= b.durationMillis() ? a : b;
    String failure = a.failure() != null ? a.failure() : b.failure();
    return new SinkCommit(
        Math.min(a.notifiedTimestamp(), b.notifiedTimestamp()), longer.durationMillis(), failure);
  }

  private static void writeCheckpoint(
      DataOutputStream out, CheckpointStatistics c, List<SubtaskCheckpointStatistics> subtasks)
      throws IOException {
    out.writeLong(c.checkpointId());
    out.writeByte(c.status().ordinal());
    out.writeBoolean(c.savepoint());
    out.writeLong(c.triggerTimestamp());
    out.writeLong(c.endToEndDurationMillis());
    out.writeBoolean(c.unaligned());
    writeString(out, c.externalPath());
    writeString(out, c.failureMessage());
    out.writeInt(subtasks.size());
    for (SubtaskCheckpointStatistics s : subtasks) {
      writeString(out, s.taskName());
      out.writeInt(s.subtaskIndex());
      out.writeInt(s.vertexIndex());
      out.writeLong(s.startDelayMillis());
      out.writeLong(s.alignmentDurationMillis());
      out.writeBoolean(s.unaligned());
      out.writeLong(s.channelStateBytes());
      out.writeLong(s.syncDurationMillis());
      out.writeLong(s.asyncDurationMillis());
      out.writeLong(s.stateSizeBytes());
      out.writeLong(s.checkpointedSizeBytes());
      out.writeLong(s.ackTimestamp());
      out.writeInt(s.filesWritten());
      SinkCommit commit = s.commit();
      out.writeBoolean(commit != null);
      if (commit != null) {
        out.writeLong(commit.notifiedTimestamp());
        out.writeLong(commit.durationMillis());
        writeString(out, commit.failure());
      }
      writeString(out, s.lastBarrierFrom());
    }
  }

  private static CheckpointStatistics readCheckpoint(DataInputStream in, int version)
      throws IOException {
    long id = in.readLong();
    int status = in.readByte();
    if (status < 0 || status >= CheckpointStatistics.Status.values().length) {
      throw new IOException("checkpoint " + id + " has an unknown status " + status);
    }
    boolean savepoint = in.readBoolean();
    long trigger = in.readLong();
    long duration = in.readLong();
    boolean unaligned = in.readBoolean();
    String externalPath = readString(in);
    String failure = readString(in);
    int n = count(in);
    List<SubtaskCheckpointStatistics> subtasks = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      String task = readString(in);
      int index = in.readInt();
      int vertex = in.readInt();
      SubtaskCheckpointStatistics s =
          new SubtaskCheckpointStatistics(
              task,
              index,
              in.readLong(),
              in.readLong(),
              in.readBoolean(),
              in.readLong(),
              in.readLong(),
              in.readLong(),
              in.readLong(),
              in.readLong(),
              vertex,
              in.readLong());
      if (version >= 2) {
        s = s.withFilesWritten(in.readInt());
        if (in.readBoolean()) {
          s = s.withCommit(new SinkCommit(in.readLong(), in.readLong(), readString(in)));
        }
      }
      if (version >= 3) {
        s = s.withLastBarrierFrom(readString(in));
      }
      subtasks.add(s);
    }
    return new CheckpointStatistics(
        id,
        CheckpointStatistics.Status.values()[status],
        trigger,
        duration,
        unaligned,
        subtasks,
        externalPath,
        savepoint,
        failure);
  }

  private static int count(DataInputStream in) throws IOException {
    int n = in.readInt();
    if (n < 0 || n > MAX_ENTRIES) {
      throw new IOException("implausible entry count " + n);
    }
    return n;
  }

  private static void writeString(DataOutputStream out, String s) throws IOException {
    if (s == null) {
      out.writeInt(-1);
      return;
    }
    byte[] b = s.getBytes(StandardCharsets.UTF_8);
    out.writeInt(b.length);
    out.write(b);
  }

  private static String readString(DataInputStream in) throws IOException {
    int n = in.readInt();
    if (n == -1) {
      return null;
    }
    if (n < 0 || n > MAX_ENTRIES * 16) {
      throw new IOException("implausible string length " + n);
    }
    byte[] b = in.readNBytes(n);
    if (b.length != n) {
      throw new EOFException();
    }
    return new String(b, StandardCharsets.UTF_8);
  }
}
