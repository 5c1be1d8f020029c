package io.weir.api;

import static io.weir.api.config.CheckpointingOptions.ALIGNED_CHECKPOINT_TIMEOUT;
import static io.weir.api.config.CheckpointingOptions.CHECKPOINTING_CONSISTENCY_MODE;
import static io.weir.api.config.CheckpointingOptions.CHECKPOINTING_INTERVAL;
import static io.weir.api.config.CheckpointingOptions.CHECKPOINTING_TIMEOUT;
import static io.weir.api.config.CheckpointingOptions.CHECKPOINTS_DIRECTORY;
import static io.weir.api.config.CheckpointingOptions.CHECKPOINT_STORAGE;
import static io.weir.api.config.CheckpointingOptions.ENABLE_UNALIGNED;
import static io.weir.api.config.CheckpointingOptions.EXTERNALIZED_CHECKPOINT_RETENTION;
import static io.weir.api.config.CheckpointingOptions.FS_SMALL_FILE_THRESHOLD;
import static io.weir.api.config.CheckpointingOptions.INCREMENTAL_CHECKPOINTS;
import static io.weir.api.config.CheckpointingOptions.JOBMANAGER_MAX_STATE_SIZE;
import static io.weir.api.config.CheckpointingOptions.MAX_CONCURRENT_CHECKPOINTS;
import static io.weir.api.config.CheckpointingOptions.MAX_RETAINED_CHECKPOINTS;
import static io.weir.api.config.CheckpointingOptions.MIN_PAUSE_BETWEEN_CHECKPOINTS;
import static io.weir.api.config.CheckpointingOptions.SAVEPOINT_DIRECTORY;
import static io.weir.api.config.CheckpointingOptions.SAVEPOINT_IGNORE_UNCLAIMED_STATE;
import static io.weir.api.config.CheckpointingOptions.SAVEPOINT_PATH;
import static io.weir.api.config.CheckpointingOptions.STATE_BACKEND;
import static io.weir.api.config.CheckpointingOptions.TOLERABLE_FAILURE_NUMBER;

import io.weir.api.config.CheckpointingOptions;
import io.weir.api.config.ConfigOption;
import io.weir.api.config.Configuration;
import io.weir.api.config.TimeUtils;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;

/**
 * The checkpointing settings of a job, as Flink's {@code CheckpointConfig}: a typed view over a
 * {@link Configuration}, so every setter writes the Flink key that a YAML file or {@code
 * -Dkey=value} would set, and every getter reads it (with Flink's default when unset). Setters
 * check their value and its conflicts with the settings already made, and fail with the key and the
 * value at fault; {@link #validate(Configuration)} checks a whole configuration, whatever its
 * source, before a job starts. Not thread-safe, like the configuration it views.
 */
public final class CheckpointConfig {

  private final Configuration configuration;

  /** A view over {@code configuration}; writes go into it. */
  public CheckpointConfig(Configuration configuration) {
    this.configuration = Objects.requireNonNull(configuration, "configuration");
  }

  /**
   * Checks every checkpointing, state backend, state recovery and restart strategy setting of
   * {@code configuration}: each value parses and lies in its range, and no two conflict. The
   * runtime calls this before it starts a job, so values from YAML or {@code -D} are checked as
   * strictly as those set in code.
   *
   * @throws IllegalArgumentException naming the key and the value at fault
   */
  public static void validate(Configuration configuration) {
    CheckpointConfig c = new CheckpointConfig(configuration);
    Optional<Duration> interval = configuration.getOptional(CHECKPOINTING_INTERVAL);
    if (interval.isPresent() && isPositive(interval.get())) {
      checkInterval(interval.get());
    }
    configuration.get(CHECKPOINTING_CONSISTENCY_MODE);
    checkTimeout(c.getCheckpointTimeout());
    checkMinPause(c.getMinPauseBetweenCheckpoints());
    checkMaxConcurrent(c.getMaxConcurrentCheckpoints());
    checkMinPauseConflict(c.getMinPauseBetweenCheckpoints(), c.getMaxConcurrentCheckpoints());
    checkTolerable(c.getTolerableCheckpointFailureNumber());
    int history = configuration.get(CheckpointingOptions.CHECKPOINTS_HISTORY_SIZE);
    if (history < 1) {
      throw invalid(
          "The checkpoint history size",
          CheckpointingOptions.CHECKPOINTS_HISTORY_SIZE,
          String.valueOf(history),
          "must be at least 1");
    }
    configuration.get(ENABLE_UNALIGNED);
    checkAlignedTimeout(c.getAlignedCheckpointTimeout());
    configuration.get(EXTERNALIZED_CHECKPOINT_RETENTION);
    checkNumRetained(c.getNumRetainedCheckpoints());
    configuration.get(INCREMENTAL_CHECKPOINTS);
    configuration.get(SAVEPOINT_IGNORE_UNCLAIMED_STATE);
    validateStorage(configuration);
    configuration
        .getOptional(SAVEPOINT_DIRECTORY)
        .ifPresent(dir -> checkDirectory("The savepoint directory", SAVEPOINT_DIRECTORY, dir));
    configuration
        .getOptional(SAVEPOINT_PATH)
        .ifPresent(
            path -> {
              if (path.isBlank()) {
                throw invalid("The path to start from", SAVEPOINT_PATH, "''", "must not be empty");
              }
            });
    if (configuration.get(FS_SMALL_FILE_THRESHOLD).bytes()
        > CheckpointingOptions.MAX_DATA_INLINE_THRESHOLD.bytes()) {
      throw invalid(
          "The data inline threshold",
          FS_SMALL_FILE_THRESHOLD,
          configuration.get(FS_SMALL_FILE_THRESHOLD).toString(),
          "must be at most " + CheckpointingOptions.MAX_DATA_INLINE_THRESHOLD);
    }
    if (configuration.get(JOBMANAGER_MAX_STATE_SIZE).bytes() < 1) {
      throw invalid(
          "The largest state of jobmanager checkpoint storage",
          JOBMANAGER_MAX_STATE_SIZE,
          configuration.get(JOBMANAGER_MAX_STATE_SIZE).toString(),
          "must be positive");
    }
    String backend = configuration.get(STATE_BACKEND).trim().toLowerCase(Locale.ROOT);
    if (!backend.equals(CheckpointingOptions.BACKEND_HASHMAP)
        && !backend.equals(CheckpointingOptions.BACKEND_ROCKSDB)) {
      throw invalid(
          "The state backend",
          STATE_BACKEND,
          "'" + configuration.get(STATE_BACKEND) + "'",
          "must be 'hashmap' or 'rocksdb'");
    }
    RestartStrategy.fromConfiguration(configuration);
  }

  // ---- interval and mode ----

  /**
   * Takes a checkpoint every {@code interval} (at least 10 ms, Flink's minimum), which turns
   * checkpointing on. {@link StreamEnvironment#enableCheckpointing(Duration)} calls this.
   */
  public CheckpointConfig setCheckpointInterval(Duration interval) {
    checkInterval(interval);
    configuration.set(CHECKPOINTING_INTERVAL, interval);
    return this;
  }

  /** As {@link #setCheckpointInterval(Duration)}, in milliseconds (Flink's setter). */
  public CheckpointConfig setCheckpointInterval(long intervalMillis) {
    return setCheckpointInterval(Duration.ofMillis(intervalMillis));
  }

  /** Whether checkpoints are taken: the interval is set and positive. */
  public boolean isCheckpointingEnabled() {
    return isCheckpointingEnabled(configuration);
  }

  /**
   * Whether {@code configuration} turns checkpointing on: {@code execution.checkpointing.interval}
   * is set and positive. Unset, zero or negative means off, however the value arrived (code, YAML,
   * {@code -D}). This is the one definition the API, the runtime and the default restart strategy
   * share.
   */
  public static boolean isCheckpointingEnabled(Configuration configuration) {
    return configuration
        .getOptional(CHECKPOINTING_INTERVAL)
        .filter(CheckpointConfig::isPositive)
        .isPresent();
  }

  /**
   * The time between the starts of two checkpoints; {@link Duration#ZERO} when checkpointing is
   * off.
   */
  public Duration getCheckpointInterval() {
    return configuration
        .getOptional(CHECKPOINTING_INTERVAL)
        .filter(CheckpointConfig::isPositive)
        .orElse(Duration.ZERO);
  }

  public CheckpointConfig setCheckpointingMode(CheckpointingMode mode) {
    Objects.requireNonNull(mode, "checkpointing mode");
    configuration.set(CHECKPOINTING_CONSISTENCY_MODE, mode);
    return this;
  }

  public CheckpointingMode getCheckpointingMode() {
    return configuration.get(CHECKPOINTING_CONSISTENCY_MODE);
  }

  // ---- timing and concurrency ----

  /** Aborts a checkpoint that has not completed after {@code timeout} (positive). */
  public CheckpointConfig setCheckpointTimeout(Duration timeout) {
    checkTimeout(timeout);
    configuration.set(CHECKPOINTING_TIMEOUT, timeout);
    return this;
  }

  /** As {@link #setCheckpointTimeout(Duration)}, in milliseconds (Flink's setter). */
  public CheckpointConfig setCheckpointTimeout(long timeoutMillis) {
    return setCheckpointTimeout(Duration.ofMillis(timeoutMillis));
  }

  public Duration getCheckpointTimeout() {
    return configuration.get(CHECKPOINTING_TIMEOUT);
  }

  /**
   * Waits at least {@code minPause} after a checkpoint ends before the next starts (0 or more). A
   * positive pause requires at most one concurrent checkpoint.
   */
  public CheckpointConfig setMinPauseBetweenCheckpoints(Duration minPause) {
    checkMinPause(minPause);
    checkMinPauseConflict(minPause, getMaxConcurrentCheckpoints());
    configuration.set(MIN_PAUSE_BETWEEN_CHECKPOINTS, minPause);
    return this;
  }

  /** As {@link #setMinPauseBetweenCheckpoints(Duration)}, in milliseconds (Flink's setter). */
  public CheckpointConfig setMinPauseBetweenCheckpoints(long minPauseMillis) {
    return setMinPauseBetweenCheckpoints(Duration.ofMillis(minPauseMillis));
  }

  public Duration getMinPauseBetweenCheckpoints() {
    return configuration.get(MIN_PAUSE_BETWEEN_CHECKPOINTS);
  }

  /**
   * Allows up to {@code maxConcurrent} checkpoints in progress at once (1 or more). More than one
   * requires a min pause of 0.
   */
  public CheckpointConfig setMaxConcurrentCheckpoints(int maxConcurrent) {
    checkMaxConcurrent(maxConcurrent);
    checkMinPauseConflict(getMinPauseBetweenCheckpoints(), maxConcurrent);
    configuration.set(MAX_CONCURRENT_CHECKPOINTS, maxConcurrent);
    return this;
  }

  public int getMaxConcurrentCheckpoints() {
    return configuration.get(MAX_CONCURRENT_CHECKPOINTS);
  }

  /**
   * Fails the job after more than {@code tolerable} consecutive checkpoint failures (0 or more).
   */
  public CheckpointConfig setTolerableCheckpointFailureNumber(int tolerable) {
    checkTolerable(tolerable);
    configuration.set(TOLERABLE_FAILURE_NUMBER, tolerable);
    return this;
  }

  public int getTolerableCheckpointFailureNumber() {
    return configuration.get(TOLERABLE_FAILURE_NUMBER);
  }

  // ---- unaligned checkpoints ----

  /** Turns unaligned checkpoints on. */
  public CheckpointConfig enableUnalignedCheckpoints() {
    return enableUnalignedCheckpoints(true);
  }

  /**
   * Unaligned checkpoints let barriers overtake buffered records, which become part of the
   * checkpoint, so checkpoints stay fast under backpressure. They apply in {@code EXACTLY_ONCE}
   * mode only: in {@code AT_LEAST_ONCE} mode barriers never block, so there is nothing to unalign.
   */
  public CheckpointConfig enableUnalignedCheckpoints(boolean enabled) {
    configuration.set(ENABLE_UNALIGNED, enabled);
    return this;
  }

  /**
   * Whether checkpoints are unaligned: enabled, and the mode is {@code EXACTLY_ONCE} (as Flink).
   */
  public boolean isUnalignedCheckpointsEnabled() {
    return configuration.get(ENABLE_UNALIGNED)
        && getCheckpointingMode() == CheckpointingMode.EXACTLY_ONCE;
  }

  /**
   * With unaligned checkpoints on: a checkpoint starts aligned and switches to unaligned when
   * alignment has taken longer than {@code timeout}; 0 (the default) starts unaligned at once.
   */
  public CheckpointConfig setAlignedCheckpointTimeout(Duration timeout) {
    checkAlignedTimeout(timeout);
    configuration.set(ALIGNED_CHECKPOINT_TIMEOUT, timeout);
    return this;
  }

  public Duration getAlignedCheckpointTimeout() {
    return configuration.get(ALIGNED_CHECKPOINT_TIMEOUT);
  }

  // ---- retention and storage ----

  public CheckpointConfig setExternalizedCheckpointRetention(
      ExternalizedCheckpointRetention retention) {
    Objects.requireNonNull(retention, "externalized checkpoint retention");
    configuration.set(EXTERNALIZED_CHECKPOINT_RETENTION, retention);
    return this;
  }

  public ExternalizedCheckpointRetention getExternalizedCheckpointRetention() {
    return configuration.get(EXTERNALIZED_CHECKPOINT_RETENTION);
  }

  /** Whether completed checkpoints outlive the job in some way (retention is not "none"). */
  public boolean isExternalizedCheckpointsEnabled() {
    return getExternalizedCheckpointRetention()
        != ExternalizedCheckpointRetention.NO_EXTERNALIZED_CHECKPOINTS;
  }

  /** Keeps the newest {@code numRetained} completed checkpoints (1 or more). */
  public CheckpointConfig setNumRetainedCheckpoints(int numRetained) {
    checkNumRetained(numRetained);
    configuration.set(MAX_RETAINED_CHECKPOINTS, numRetained);
    return this;
  }

  public int getNumRetainedCheckpoints() {
    return configuration.get(MAX_RETAINED_CHECKPOINTS);
  }

  /**
   * Where checkpoints go. A directory URI ({@code file:///var/weir/checkpoints}, {@code
   * hdfs://...}, {@code s3://...}, or an absolute local path) selects file system storage below it;
   * {@code "jobmanager"} selects storage in the coordinator's memory, for development.
   */
  public CheckpointConfig setCheckpointStorage(String storage) {
    Objects.requireNonNull(storage, "checkpoint storage");
    if (storage.trim().equalsIgnoreCase(CheckpointingOptions.STORAGE_JOBMANAGER)) {
      configuration.set(CHECKPOINT_STORAGE, CheckpointingOptions.STORAGE_JOBMANAGER);
      configuration.remove(CHECKPOINTS_DIRECTORY);
      return this;
    }
    checkDirectory("The checkpoint storage directory", CHECKPOINTS_DIRECTORY, storage);
    configuration.set(CHECKPOINT_STORAGE, CheckpointingOptions.STORAGE_FILESYSTEM);
    configuration.set(CHECKPOINTS_DIRECTORY, storage.trim());
    return this;
  }

  /**
   * The checkpoint storage in use, {@code "jobmanager"} or {@code "filesystem"}: the one set, or
   * else file system storage when a checkpoint directory is set and jobmanager storage when not (as
   * Flink).
   */
  public String getCheckpointStorage() {
    return configuration
        .getOptional(CHECKPOINT_STORAGE)
        .map(s -> s.trim().toLowerCase(Locale.ROOT))
        .orElse(
            configuration.contains(CHECKPOINTS_DIRECTORY)
                ? CheckpointingOptions.STORAGE_FILESYSTEM
                : CheckpointingOptions.STORAGE_JOBMANAGER);
  }

  /** The checkpoint directory URI, if one is set. */
  public Optional<String> getCheckpointDirectory() {
    return configuration.getOptional(CHECKPOINTS_DIRECTORY);
  }

  // ---- checks shared by the setters and validate ----

  private static void checkInterval(Duration interval) {
    Objects.requireNonNull(interval, "checkpoint interval");
    if (interval.compareTo(CheckpointingOptions.MINIMAL_CHECKPOINT_INTERVAL) < 0) {
      throw invalid(
          "The checkpoint interval",
          CHECKPOINTING_INTERVAL,
          format(interval),
          "must be at least "
              + format(CheckpointingOptions.MINIMAL_CHECKPOINT_INTERVAL)
              + " (leave it unset to turn checkpointing off)");
    }
  }

  private static void checkTimeout(Duration timeout) {
    Objects.requireNonNull(timeout, "checkpoint timeout");
    if (!isPositive(timeout)) {
      throw invalid(
          "The checkpoint timeout", CHECKPOINTING_TIMEOUT, format(timeout), "must be positive");
    }
  }

  private static void checkMinPause(Duration minPause) {
    Objects.requireNonNull(minPause, "min pause between checkpoints");
    if (minPause.isNegative()) {
      throw invalid(
          "The min pause between checkpoints",
          MIN_PAUSE_BETWEEN_CHECKPOINTS,
          format(minPause),
          "must not be negative");
    }
  }

  private static void checkMaxConcurrent(int maxConcurrent) {
    if (maxConcurrent < 1) {
      throw invalid(
          "The max concurrent checkpoints",
          MAX_CONCURRENT_CHECKPOINTS,
          String.valueOf(maxConcurrent),
          "must be at least 1");
    }
  }

  private static void checkMinPauseConflict(Duration minPause, int maxConcurrent) {
    if (isPositive(minPause) && maxConcurrent > 1) {
      throw new IllegalArgumentException(
          "A min pause between checkpoints ("
              + MIN_PAUSE_BETWEEN_CHECKPOINTS.key()
              + " = "
              + format(minPause)
              + ") only works with one checkpoint at a time, but "
              + MAX_CONCURRENT_CHECKPOINTS.key()
              + " is "
              + maxConcurrent
              + ". Set the min pause to 0 or the max concurrent checkpoints to 1.");
    }
  }

  private static void checkTolerable(int tolerable) {
    if (tolerable < 0) {
      throw invalid(
          "The tolerable checkpoint failure number",
          TOLERABLE_FAILURE_NUMBER,
          String.valueOf(tolerable),
          "must not be negative");
    }
  }

  private static void checkAlignedTimeout(Duration timeout) {
    Objects.requireNonNull(timeout, "aligned checkpoint timeout");
    if (timeout.isNegative()) {
      throw invalid(
          "The aligned checkpoint timeout",
          ALIGNED_CHECKPOINT_TIMEOUT,
          format(timeout),
          "must not be negative (0 starts unaligned at once)");
    }
  }

  private static void checkNumRetained(int numRetained) {
    if (numRetained < 1) {
      throw invalid(
          "The number of retained checkpoints",
          MAX_RETAINED_CHECKPOINTS,
          String.valueOf(numRetained),
          "must be at least 1");
    }
  }

  private static void validateStorage(Configuration configuration) {
    Optional<String> dir = configuration.getOptional(CHECKPOINTS_DIRECTORY);
    dir.ifPresent(d -> checkDirectory("The checkpoint directory", CHECKPOINTS_DIRECTORY, d));
    Optional<String> storage = configuration.getOptional(CHECKPOINT_STORAGE);
    if (storage.isEmpty()) {
      return;
    }
    String type = storage.get().trim().toLowerCase(Locale.ROOT);
    if (type.equals(CheckpointingOptions.STORAGE_FILESYSTEM)) {
      if (dir.isEmpty()) {
        throw new IllegalArgumentException(
            "File system checkpoint storage ("
                + CHECKPOINT_STORAGE.key()
                + " = filesystem) needs a directory: set "
                + CHECKPOINTS_DIRECTORY.key()
                + ", e.g. to file:///var/weir/checkpoints.");
      }
    } else if (!type.equals(CheckpointingOptions.STORAGE_JOBMANAGER)) {
      throw invalid(
          "The checkpoint storage",
          CHECKPOINT_STORAGE,
          "'" + storage.get() + "'",
          "must be 'jobmanager' or 'filesystem'");
    }
  }

  /** A directory must be a URI with a scheme, or an absolute path, and not a root. */
  private static void checkDirectory(String what, ConfigOption<String> option, String directory) {
    String text = directory.trim();
    String quoted = "'" + directory + "'";
    if (text.isEmpty()) {
      throw invalid(
          what,
          option,
          quoted,
          "must be a directory URI such as file:///var/weir/checkpoints or hdfs://namenode/weir");
    }
    URI uri;
    try {
      uri = new URI(text);
    } catch (URISyntaxException e) {
      throw invalid(
          what,
          option,
          quoted,
          "must be a valid URI such as file:///var/weir/checkpoints (" + e.getMessage() + ")");
    }
    if (uri.isOpaque()) {
      throw invalid(
          what, option, quoted, "must be a hierarchical URI such as file:///var/weir/checkpoints");
    }
    String path = uri.getPath();
    if (uri.getScheme() == null && (path == null || !path.startsWith("/"))) {
      throw invalid(
          what,
          option,
          quoted,
          "must be an absolute path or a URI with a scheme, such as file:///var/weir/checkpoints");
    }
    boolean knownScheme =
        uri.getScheme() == null
            || java.util.Set.of("file", "hdfs", "s3", "s3a")
                .contains(uri.getScheme().toLowerCase(java.util.Locale.ROOT));
    // An unknown scheme is left to the runtime, which names it as the thing at fault.
    if (knownScheme && (path == null || path.isEmpty() || path.equals("/"))) {
      throw invalid(
          what,
          option,
          quoted,
          "must name a directory, not the root of a file system (e.g. "
              + (uri.getScheme() == null ? "file" : uri.getScheme())
              + "://"
              + (uri.getAuthority() == null ? "" : uri.getAuthority())
              + "/weir/checkpoints)");
    }
  }

  private static IllegalArgumentException invalid(
      String what, ConfigOption<?> option, String value, String rule) {
    return new IllegalArgumentException(
        what + " (" + option.key() + ") " + rule + ", but was " + value + ".");
  }

  private static boolean isPositive(Duration d) {
    return !d.isNegative() && !d.isZero();
  }

  private static String format(Duration d) {
    return TimeUtils.format(d);
  }

  @Override
  public String toString() {
    return "CheckpointConfig{"
        + (isCheckpointingEnabled() ? "interval=" + format(getCheckpointInterval()) : "off")
        + ", mode="
        + getCheckpointingMode()
        + ", storage="
        + getCheckpointStorage()
        + getCheckpointDirectory().map(d -> " " + d).orElse("")
        + "}";
  }
}
