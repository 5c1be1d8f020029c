package io.weir.runtime.storage;

import io.weir.api.config.Configuration;
import io.weir.api.config.MemorySize;
import io.weir.runtime.checkpoint.CheckpointHistory;
import io.weir.runtime.checkpoint.CompletedCheckpoint;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.ConcurrentSkipListMap;

/**
 * Checkpoints in the coordinator's memory: every state is an inline handle, and completed
 * checkpoints are kept in a map until discarded. Nothing survives the process, so this is for
 * development and tests; each state is limited (5 MiB by default) to keep it from filling the heap.
 *
 * <p>Thread-safe.
 */
public final class JobManagerCheckpointStorage implements CheckpointStorage {

  /** The default limit for one state: 5 MiB, as in Flink. */
  public static final int DEFAULT_MAX_STATE_SIZE = 5 << 20;

  private final int maxStateSizeBytes;

  /** Begins the pointer of a checkpoint kept in memory. */
  private static final String POINTER_PREFIX = "jobmanager:";

  private final Configuration conf;
  private final ConcurrentSkipListMap<Long, CompletedCheckpoint> completed =
      new ConcurrentSkipListMap<>(Comparator.reverseOrder());

  /** With the default limit of 5 MiB per state. */
  public JobManagerCheckpointStorage() {
    this(DEFAULT_MAX_STATE_SIZE);
  }

  /**
   * @param maxStateSizeBytes the largest state one operator subtask may write
   */
  public JobManagerCheckpointStorage(int maxStateSizeBytes) {
    this(maxStateSizeBytes, null);
  }

  /**
   * @param maxStateSizeBytes the largest state one operator subtask may write
   * @param conf the job's configuration, which the file systems of its savepoints are made with
   *     (null: the process's)
   */
  public JobManagerCheckpointStorage(int maxStateSizeBytes, Configuration conf) {
    this.conf = conf;
    if (maxStateSizeBytes <= 0) {
      throw new IllegalArgumentException(
          "The maximum state size must be positive: " + maxStateSizeBytes);
    }
    this.maxStateSizeBytes = maxStateSizeBytes;
  }

  @Override
  public Configuration fileSystemConfiguration() {
    return conf;
  }

  /** The largest state one operator subtask may write. */
  public int maxStateSizeBytes() {
    return maxStateSizeBytes;
  }

  /**
   * Keeps {@code data} inline.
   *
   * @throws StateSizeLimitException if {@code data} is larger than the limit, saying what to do
   */
  @Override
  public StreamStateHandle writeState(long checkpointId, byte[] data, String description)
      throws IOException {
    if (data.length > maxStateSizeBytes) {
      throw new StateSizeLimitException(
          "State "
              + description
              + " of checkpoint "
              + checkpointId
              + " is "
              + data.length
              + " bytes ("
              + approximately(data.length)
              + "), more than the "
              + new MemorySize(maxStateSizeBytes)
              + " that JobManager checkpoint storage keeps per state. Store checkpoints in"
              + " files instead (execution.checkpointing.storage: filesystem and"
              + " execution.checkpointing.dir: a directory or URI), or raise the limit with"
              + " execution.checkpointing.jobmanager.max-state-size.");
    }
    return InlineState.of(data);
  }

  @Override
  public byte[] readState(StreamStateHandle handle) throws IOException {
    Objects.requireNonNull(handle, "handle");
    if (handle instanceof StreamStateHandle.Inline inline) {
      return InlineState.read(inline);
    }
    throw new DamagedStateException(
        "JobManager checkpoint storage cannot read "
            + handle
            + ": it holds state in memory only; a file handle belongs to file system storage"
            + " (FileSystemCheckpointStorage)");
  }

  /**
   * Keeps the checkpoint in memory.
   *
   * @return {@code jobmanager:chk-<n>}: a name for messages, not a location to restore from
   */
  @Override
  public String commitCheckpoint(CompletedCheckpoint checkpoint) throws IOException {
    CompletedCheckpoint previous = completed.putIfAbsent(checkpoint.checkpointId(), checkpoint);
    if (previous != null) {
      throw new IOException(
          "Checkpoint "
              + checkpoint.checkpointId()
              + " is already committed; ids are never reused");
    }
    return POINTER_PREFIX + "chk-" + checkpoint.checkpointId();
  }

  @Override
  public void writeHistory(String pointer, CheckpointHistory history) throws IOException {
    if (pointer.startsWith(POINTER_PREFIX)) {
      return; // a checkpoint in memory: no directory to write it beside
    }
    CheckpointHistoryFormat.write(pointer, history, conf);
  }

  @Override
  public CheckpointHistory readHistory(String pointer) throws IOException {
    if (pointer.startsWith(POINTER_PREFIX)) {
      return CheckpointHistory.EMPTY;
    }
    return CheckpointHistoryFormat.read(pointer, conf);
  }

  @Override
  public void discardCheckpoint(long checkpointId) {
    completed.remove(checkpointId);
  }

  /** The checkpoints committed and not discarded, newest first; never any problems. */
  @Override
  public List<CompletedCheckpoint> loadRetained(List<String> problems) {
    return new ArrayList<>(completed.values());
  }

  @Override
  public String toString() {
    return "JobManagerCheckpointStorage[max state size " + new MemorySize(maxStateSizeBytes) + "]";
  }

  private static String approximately(long bytes) {
    if (bytes >= 1 << 20) {
      return String.format(Locale.ROOT, "%.1f MiB", bytes / (double) (1 << 20));
    }
    return String.format(Locale.ROOT, "%.1f KiB", bytes / 1024.0);
  }
}
