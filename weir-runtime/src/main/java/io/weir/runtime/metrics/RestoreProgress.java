package io.weir.runtime.metrics;

import java.util.concurrent.atomic.LongAdder;

/**
 * How far one subtask's restore has come: the state it reads from checkpoint storage before it
 * takes its first record, against the total its share of the checkpoint holds, and how long it has
 * taken. Flink reports a restore only once it is over ({@code lastCheckpointRestoreTimestamp}, and
 * in its traces the totals after the fact); this is what a user watching a long restore wants while
 * it runs: bytes and files so far, and an estimate of the time left; and then the records it
 * replays from the in-flight data of an unaligned checkpoint.
 *
 * <p>Bytes and files are counted as each piece of state has been read and verified, so a large file
 * counts when it is whole. A subtask that restores its RocksDB database from its task-local copy
 * reads almost nothing from the storage: its restore ends with fewer bytes read than its total.
 *
 * <p>Thread-safe: the task's thread and its state backend's download threads count; any thread
 * samples.
 */
public final class RestoreProgress {

  private final long checkpointId;
  private final long bytesTotal;
  private final long filesTotal;
  private final LongAdder bytesRead = new LongAdder();
  private final LongAdder filesRead = new LongAdder();

  /** When the restore began, on {@link System#nanoTime()}; meaningful once {@link #began}. */
  private volatile long beganNanos;

  private volatile boolean began;

  /** How long the restore took, once it ended; -1 before. */
  private volatile long durationNanos = -1;

  /** Records read from restored in-flight data; written by the task's thread only. */
  private volatile long recordsReplayed;

  /**
   * @param checkpointId the checkpoint (or savepoint) restored
   * @param bytesTotal the bytes of the subtask's share of it, each piece of state once
   * @param filesTotal the files among them (the rest is inline in the checkpoint's metadata)
   */
  public RestoreProgress(long checkpointId, long bytesTotal, long filesTotal) {
    this.checkpointId = checkpointId;
    this.bytesTotal = bytesTotal;
    this.filesTotal = filesTotal;
  }

  /** The subtask's thread starts to restore. */
  public void begin() {
    beganNanos = System.nanoTime();
    began = true;
  }

  /** A piece of state of {@code bytes} was read and verified; {@code file} if it was a file. */
  public void read(long bytes, boolean file) {
    bytesRead.add(bytes);
    if (file) {
      filesRead.increment();
    }
  }

  /** The subtask's operators have their state: it is about to take its first record. */
  public void end() {
    durationNanos = began ? System.nanoTime() - beganNanos : 0;
  }

  /**
   * The subtask read {@code records} more records from the in-flight data it restored (an unaligned
   * checkpoint's input channel state); after {@link #end}, as it processes. The task's thread only.
   */
  public void replayed(long records) {
    recordsReplayed += records; // one writer: volatile for the readers
  }

  /** The progress now, {@code nowNanos} on {@link System#nanoTime()}. */
  public Sample sample(long nowNanos) {
    long duration = durationNanos;
    boolean done = duration >= 0;
    long elapsed = done ? duration : began ? Math.max(0, nowNanos - beganNanos) : 0;
    return new Sample(
        checkpointId,
        bytesRead.sum(),
        bytesTotal,
        filesRead.sum(),
        filesTotal,
        elapsed / 1_000_000,
        done,
        recordsReplayed);
  }

  /**
   * A restore's progress at one moment.
   *
   * @param checkpointId the checkpoint restored
   * @param bytesRead bytes read and verified so far
   * @param bytesTotal bytes of the subtask's share of the checkpoint
   * @param filesRead files read and verified so far
   * @param filesTotal files of the subtask's share
   * @param durationMillis how long the restore has taken so far, or took once done
   * @param done whether the subtask has its state and processes records
   * @param recordsReplayed records the subtask read so far from the in-flight data it restored (an
   *     unaligned checkpoint's recorded input), which it processes after {@code done}
   */
  public record Sample(
      long checkpointId,
      long bytesRead,
      long bytesTotal,
      long filesRead,
      long filesTotal,
      long durationMillis,
      boolean done,
      long recordsReplayed) {

    /** A sample without replayed records. */
    public Sample(
        long checkpointId,
        long bytesRead,
        long bytesTotal,
        long filesRead,
        long filesTotal,
        long durationMillis,
        boolean done) {
      this(checkpointId, bytesRead, bytesTotal, filesRead, filesTotal, durationMillis, done, 0);
    }

    /**
     * The time left at the rate read so far, in milliseconds: 0 once done, -1 while nothing was
     * read yet (no rate to go by).
     */
    public long estimatedMillisLeft() {
      if (done) {
        return 0;
      }
      if (bytesRead <= 0 || durationMillis <= 0) {
        return -1;
      }
      long left = Math.max(0, bytesTotal - bytesRead);
      return (long) ((double) left * durationMillis / bytesRead);
    }
  }
}
