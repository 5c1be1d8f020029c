package io.weir.runtime.storage;

import io.weir.api.config.CheckpointingOptions;
import io.weir.api.config.Configuration;
import io.weir.api.config.MemorySize;
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
 */
public final class CheckpointStorages {

  public static final String STORAGE_KEY = "execution.checkpointing.storage";
  public static final String DIR_KEY = "execution.checkpointing.dir";
  public static final String INLINE_THRESHOLD_KEY = "execution.checkpointing.data-inline-threshold";

  static final String DEFAULT_INLINE_THRESHOLD = "20 kb";
  static final int DEFAULT_INLINE_THRESHOLD_BYTES = 20 * 1024;
  static final long MAX_INLINE_THRESHOLD = 1 << 20;

  private CheckpointStorages() {}

  /**
   * The storage for the checkpoints of job {@code jobId}.
   *
   * @throws IllegalArgumentException naming the key at fault for a missing or invalid setting
   */
  /**
   * The storage of a job without periodic checkpoints: in memory, creating nothing on disk; its
   * savepoints write their state into their own directories.
   */
  public static CheckpointStorage forSavepointsOnly(Configuration conf) {
    return new JobManagerCheckpointStorage(
        (int)
            Math.min(
                Integer.MAX_VALUE,
                conf.get(CheckpointingOptions.JOBMANAGER_MAX_STATE_SIZE).bytes()));
  }

  public static CheckpointStorage create(Configuration conf, String jobId) {
    String dir = blankToNull(conf.getString(DIR_KEY, null));
    String type = blankToNull(conf.getString(STORAGE_KEY, null));
    if (type == null) {
      type = dir != null ? "filesystem" : "jobmanager";
    }
    return switch (type.toLowerCase(Locale.ROOT)) {
      case "jobmanager" -> forSavepointsOnly(conf);
      case "filesystem" -> {
        if (dir == null) {
          throw new IllegalArgumentException(
              STORAGE_KEY
                  + " is 'filesystem' but "
                  + DIR_KEY
                  + " is not set: set "
                  + DIR_KEY
                  + " to a directory or URI such as file:///var/weir/checkpoints, or set "
                  + STORAGE_KEY
                  + " to 'jobmanager'");
        }
        yield new FileSystemCheckpointStorage(FileSystems.toUri(dir), jobId, inlineThreshold(conf));
      }
      default ->
          throw new IllegalArgumentException(
              STORAGE_KEY
                  + ": unknown storage '"
                  + type
                  + "'; expected 'jobmanager' or 'filesystem'");
    };
  }

  private static int inlineThreshold(Configuration conf) {
    String text = conf.getString(INLINE_THRESHOLD_KEY, DEFAULT_INLINE_THRESHOLD);
    MemorySize size;
    try {
      size = MemorySize.parse(text);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          INLINE_THRESHOLD_KEY + ": cannot read '" + text + "': " + e.getMessage(), e);
    }
    if (size.bytes() > MAX_INLINE_THRESHOLD) {
      throw new IllegalArgumentException(
          INLINE_THRESHOLD_KEY
              + " is "
              + size
              + ", more than the 1 mb allowed: inline state makes the metadata the coordinator"
              + " writes and reads larger");
    }
    return (int) size.bytes();
  }

  private static String blankToNull(String s) {
    return s == null || s.isBlank() ? null : s.trim();
  }
}
