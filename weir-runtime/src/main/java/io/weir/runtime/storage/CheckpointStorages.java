package io.weir.runtime.storage;

import static io.weir.api.config.CheckpointingOptions.CHECKPOINTS_DIRECTORY;
import static io.weir.api.config.CheckpointingOptions.CHECKPOINT_STORAGE;
import static io.weir.api.config.CheckpointingOptions.FS_SMALL_FILE_THRESHOLD;
import static io.weir.api.config.CheckpointingOptions.MAX_DATA_INLINE_THRESHOLD;
import static io.weir.api.config.CheckpointingOptions.STORAGE_FILESYSTEM;
import static io.weir.api.config.CheckpointingOptions.STORAGE_JOBMANAGER;

import io.weir.api.config.CheckpointingOptions;
import io.weir.api.config.Configuration;
import io.weir.api.config.MemorySize;
import java.io.IOException;
import java.util.Locale;

/**
 * Creates a job's {@link CheckpointStorage} from configuration, with Flink 2.x's keys:
 *
 * <ul>
 *   <li>{@code execution.checkpointing.storage}: {@code jobmanager} or {@code filesystem}; by
 *       default {@code filesystem} when a directory is set, else {@code jobmanager}
 *   <li>{@code execution.checkpointing.dir}: the base directory, as a URI or a local path
 *   <li>{@code execution.checkpointing.data-inline-threshold}: state up to this size is kept inline
 *       in the metadata (default {@code 20 kb}, at most {@code 1 mb})
 * </ul>
 *
 * <p>and the deprecated names {@link CheckpointingOptions} declares for each.
 */
public final class CheckpointStorages {

  static final int DEFAULT_INLINE_THRESHOLD_BYTES =
      (int) CheckpointingOptions.FS_SMALL_FILE_THRESHOLD.defaultValue().bytes();

  private CheckpointStorages() {}

  /**
   * The storage of a job without periodic checkpoints: in memory, creating nothing on disk; its
   * savepoints write their state into their own directories.
   */
  public static CheckpointStorage forSavepointsOnly(Configuration conf) {
    return new JobManagerCheckpointStorage(
        (int)
            Math.min(
                Integer.MAX_VALUE,
                conf.get(CheckpointingOptions.JOBMANAGER_MAX_STATE_SIZE).bytes()),
        conf);
  }

  /**
   * The storage for the checkpoints of job {@code jobId}. Every key is read through its option, so
   * Flink's older names ({@code state.checkpoints.dir}, {@code state.checkpoint-storage}, ...) mean
   * what the current ones do.
   *
   * @throws IllegalArgumentException naming the key at fault for a missing or invalid setting
   */
  public static CheckpointStorage create(Configuration conf, String jobId) {
    String dir = blankToNull(conf.getOptional(CHECKPOINTS_DIRECTORY).orElse(null));
    String type = blankToNull(conf.getOptional(CHECKPOINT_STORAGE).orElse(null));
    if (type == null) {
      type = dir != null ? STORAGE_FILESYSTEM : STORAGE_JOBMANAGER;
    }
    return switch (type.toLowerCase(Locale.ROOT)) {
      case STORAGE_JOBMANAGER -> forSavepointsOnly(conf);
      case STORAGE_FILESYSTEM -> {
        if (dir == null) {
          throw new IllegalArgumentException(
              CHECKPOINT_STORAGE.key()
                  + " is 'filesystem' but "
                  + CHECKPOINTS_DIRECTORY.key()
                  + " is not set: set "
                  + CHECKPOINTS_DIRECTORY.key()
                  + " to a directory or URI such as file:///var/weir/checkpoints, or set "
                  + CHECKPOINT_STORAGE.key()
                  + " to 'jobmanager'");
        }
        yield new FileSystemCheckpointStorage(
            FileSystems.toUri(dir), jobId, inlineThreshold(conf), conf);
      }
      default ->
          throw new IllegalArgumentException(
              CHECKPOINT_STORAGE.key()
                  + ": unknown storage '"
                  + type
                  + "'; expected 'jobmanager' or 'filesystem'");
    };
  }

  /**
   * Turns a reference a JobManager shipped back into a reader of the same state, with the job's
   * configuration: the job's own storage ({@link #create}) or the checkpoint it points to ({@link
   * CompletedCheckpointLocation#load}).
   *
   * @throws IOException naming the checkpoint if it cannot be loaded here
   */
  public static CheckpointStateReader reader(
      StorageReference reference, Configuration conf, String jobId) throws IOException {
    return switch (reference.kind()) {
      case JOB -> create(conf, jobId);
      case CHECKPOINT -> CompletedCheckpointLocation.load(reference.pointer(), conf).storage();
    };
  }

  private static int inlineThreshold(Configuration conf) {
    MemorySize size = conf.get(FS_SMALL_FILE_THRESHOLD);
    if (size.bytes() > MAX_DATA_INLINE_THRESHOLD.bytes()) {
      throw new IllegalArgumentException(
          FS_SMALL_FILE_THRESHOLD.key()
              + " is "
              + size
              + ", more than the "
              + MAX_DATA_INLINE_THRESHOLD
              + " allowed: inline state makes the metadata the coordinator writes and reads"
              + " larger");
    }
    return (int) size.bytes();
  }

  private static String blankToNull(String s) {
    return s == null || s.isBlank() ? null : s.trim();
  }
}
