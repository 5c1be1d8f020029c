package io.weir.api.config;

import io.weir.api.CheckpointingMode;
import io.weir.api.ExternalizedCheckpointRetention;
import io.weir.api.RecoveryClaimMode;
import java.time.Duration;

/**
 * The options of checkpoints, state backends and state recovery. Keys, defaults and constant names
 * are Flink 2.x's ({@code CheckpointingOptions}, {@code StateBackendOptions}, {@code
 * StateRecoveryOptions}); the Flink 1.x keys are read as deprecated keys, so an older Flink
 * configuration file still means the same thing. {@link io.weir.api.CheckpointConfig} is the typed
 * view a job uses, and {@link io.weir.api.CheckpointConfig#validate(Configuration)} checks a whole
 * configuration.
 */
public final class CheckpointingOptions {

  private CheckpointingOptions() {}

  /** Value of {@link #CHECKPOINT_STORAGE}: state travels to the coordinator's memory. */
  public static final String STORAGE_JOBMANAGER = "jobmanager";

  /**
   * Value of {@link #CHECKPOINT_STORAGE}: state is written below {@link #CHECKPOINTS_DIRECTORY}.
   */
  public static final String STORAGE_FILESYSTEM = "filesystem";

  /** Value of {@link #STATE_BACKEND}: state as objects on the heap. */
  public static final String BACKEND_HASHMAP = "hashmap";

  /** Value of {@link #STATE_BACKEND}: state serialized in an embedded RocksDB. */
  public static final String BACKEND_ROCKSDB = "rocksdb";

  /** Flink's lower bound of the checkpoint interval. */
  public static final Duration MINIMAL_CHECKPOINT_INTERVAL = Duration.ofMillis(10);

  /** Flink's upper bound of {@link #FS_SMALL_FILE_THRESHOLD}. */
  public static final MemorySize MAX_DATA_INLINE_THRESHOLD = MemorySize.ofMebiBytes(1);

  public static final ConfigOption<Duration> CHECKPOINTING_INTERVAL =
      ConfigOptions.key("execution.checkpointing.interval")
          .durationType()
          .noDefaultValue()
          .withDescription(
              "Time between the starts of two checkpoints. Unset, zero or negative: checkpointing"
                  + " is off. At least 10 ms when on.");

  public static final ConfigOption<CheckpointingMode> CHECKPOINTING_CONSISTENCY_MODE =
      ConfigOptions.key("execution.checkpointing.mode")
          .enumType(CheckpointingMode.class)
          .defaultValue(CheckpointingMode.EXACTLY_ONCE)
          .withDescription("The checkpointing mode: EXACTLY_ONCE or AT_LEAST_ONCE.");

  public static final ConfigOption<Duration> CHECKPOINTING_TIMEOUT =
      ConfigOptions.key("execution.checkpointing.timeout")
          .durationType()
          .defaultValue(Duration.ofMinutes(10))
          .withDescription("Longest time a checkpoint may take before it is aborted.");

  public static final ConfigOption<Duration> MIN_PAUSE_BETWEEN_CHECKPOINTS =
      ConfigOptions.key("execution.checkpointing.min-pause")
          .durationType()
          .defaultValue(Duration.ZERO)
          .withDescription(
              "Shortest time between the end of one checkpoint and the start of the next. Only"
                  + " with max-concurrent-checkpoints = 1.");

  public static final ConfigOption<Integer> MAX_CONCURRENT_CHECKPOINTS =
      ConfigOptions.key("execution.checkpointing.max-concurrent-checkpoints")
          .intType()
          .defaultValue(1)
          .withDescription("Most checkpoints that may be in progress at the same time.");

  public static final ConfigOption<Integer> TOLERABLE_FAILURE_NUMBER =
      ConfigOptions.key("execution.checkpointing.tolerable-failed-checkpoints")
          .intType()
          .defaultValue(0)
          .withDescription(
              "Consecutive checkpoint failures tolerated before the job fails; 0 tolerates none.");

  /** How many recent checkpoints the coordinator keeps statistics of (Flink's key). */
  public static final ConfigOption<Integer> CHECKPOINTS_HISTORY_SIZE =
      ConfigOptions.key("web.checkpoints.history")
          .intType()
          .defaultValue(100)
          .withDescription(
              "How many recent checkpoints and savepoints the JobManager keeps statistics of, for"
                  + " REST, the dashboard and the checkpoint history file written beside each"
                  + " checkpoint's metadata (the newest ones with every subtask, up to 10 and"
                  + " fewer for jobs of thousands of subtasks; older ones per vertex). At least 1.");

  public static final ConfigOption<Boolean> ENABLE_UNALIGNED =
      ConfigOptions.key("execution.checkpointing.unaligned.enabled")
          .booleanType()
          .defaultValue(false)
          .withDescription(
              "Unaligned checkpoints: barriers overtake buffered data, which becomes part of the"
                  + " checkpoint. Only in EXACTLY_ONCE mode.")
          .withDeprecatedKeys("execution.checkpointing.unaligned");

  public static final ConfigOption<Duration> ALIGNED_CHECKPOINT_TIMEOUT =
      ConfigOptions.key("execution.checkpointing.aligned-checkpoint-timeout")
          .durationType()
          .defaultValue(Duration.ZERO)
          .withDescription(
              "With unaligned checkpoints on: how long a checkpoint starts aligned before it"
                  + " switches to unaligned; 0 starts unaligned at once.")
          .withDeprecatedKeys("execution.checkpointing.alignment-timeout");

  public static final ConfigOption<ExternalizedCheckpointRetention>
      EXTERNALIZED_CHECKPOINT_RETENTION =
          ConfigOptions.key("execution.checkpointing.externalized-checkpoint-retention")
              .enumType(ExternalizedCheckpointRetention.class)
              .defaultValue(ExternalizedCheckpointRetention.NO_EXTERNALIZED_CHECKPOINTS)
              .withDescription("What happens to completed checkpoints when the job ends.");

  public static final ConfigOption<Integer> MAX_RETAINED_CHECKPOINTS =
      ConfigOptions.key("execution.checkpointing.num-retained")
          .intType()
          .defaultValue(1)
          .withDescription("Number of newest completed checkpoints kept.")
          .withDeprecatedKeys("state.checkpoints.num-retained");

  public static final ConfigOption<String> CHECKPOINT_STORAGE =
      ConfigOptions.key("execution.checkpointing.storage")
          .stringType()
          .noDefaultValue()
          .withDescription(
              "Where checkpoints go: 'jobmanager' (coordinator memory) or 'filesystem' (below"
                  + " execution.checkpointing.dir). Unset: filesystem if the dir is set, else"
                  + " jobmanager.")
          .withDeprecatedKeys("state.checkpoint-storage");

  public static final ConfigOption<String> CHECKPOINTS_DIRECTORY =
      ConfigOptions.key("execution.checkpointing.dir")
          .stringType()
          .noDefaultValue()
          .withDescription(
              "Directory (URI) of the checkpoints, e.g. file:///var/weir/checkpoints; every"
                  + " process of the job must reach it.")
          .withDeprecatedKeys("state.checkpoints.dir", "state.backend.fs.checkpointdir");

  public static final ConfigOption<Boolean> INCREMENTAL_CHECKPOINTS =
      ConfigOptions.key("execution.checkpointing.incremental")
          .booleanType()
          .defaultValue(false)
          .withDescription(
              "Upload only what changed since the previous checkpoint, where the backend can.")
          .withDeprecatedKeys("state.backend.incremental");

  public static final ConfigOption<MemorySize> FS_SMALL_FILE_THRESHOLD =
      ConfigOptions.key("execution.checkpointing.data-inline-threshold")
          .memoryType()
          .defaultValue(MemorySize.parse("20 kb"))
          .withDescription(
              "State chunks smaller than this are inlined in the checkpoint metadata; at most"
                  + " 1 mb.")
          .withDeprecatedKeys(
              "state.storage.fs.memory-threshold", "state.backend.fs.memory-threshold");

  public static final ConfigOption<String> SAVEPOINT_DIRECTORY =
      ConfigOptions.key("execution.checkpointing.savepoint-dir")
          .stringType()
          .noDefaultValue()
          .withDescription("Default directory (URI) of savepoints.")
          .withDeprecatedKeys("state.savepoints.dir", "savepoints.state.backend.fs.dir");

  /**
   * Weir's own key (Flink sets this only in code): the largest state of one task that {@code
   * jobmanager} checkpoint storage accepts.
   */
  public static final ConfigOption<MemorySize> JOBMANAGER_MAX_STATE_SIZE =
      ConfigOptions.key("execution.checkpointing.jobmanager.max-state-size")
          .memoryType()
          .defaultValue(MemorySize.ofMebiBytes(5))
          .withDescription(
              "Largest state of one task accepted by 'jobmanager' checkpoint storage; use"
                  + " 'filesystem' storage for more.");

  public static final ConfigOption<String> STATE_BACKEND =
      ConfigOptions.key("state.backend.type")
          .stringType()
          .defaultValue(BACKEND_HASHMAP)
          .withDescription("The state backend: 'hashmap' (heap) or 'rocksdb'.")
          .withDeprecatedKeys("state.backend");

  public static final ConfigOption<String> SAVEPOINT_PATH =
      ConfigOptions.key("execution.state-recovery.path")
          .stringType()
          .noDefaultValue()
          .withDescription("Savepoint or retained checkpoint the job starts from.")
          .withDeprecatedKeys("execution.savepoint.path");

  public static final ConfigOption<Boolean> SAVEPOINT_IGNORE_UNCLAIMED_STATE =
      ConfigOptions.key("execution.state-recovery.ignore-unclaimed-state")
          .booleanType()
          .defaultValue(false)
          .withDescription(
              "Start even if the savepoint holds state of an operator that the job no longer has.")
          .withDeprecatedKeys("execution.savepoint.ignore-unclaimed-state");

  public static final ConfigOption<RecoveryClaimMode> RECOVERY_CLAIM_MODE =
      ConfigOptions.key("execution.state-recovery.claim-mode")
          .enumType(RecoveryClaimMode.class)
          .defaultValue(RecoveryClaimMode.NO_CLAIM)
          .withDescription(
              "Who owns the restored checkpoint: NO_CLAIM (the job never deletes it and its first"
                  + " checkpoint is full) or CLAIM (the job deletes it once subsumed).")
          .withDeprecatedKeys("execution.savepoint-restore-mode");

  public static final ConfigOption<Boolean> LOCAL_RECOVERY =
      ConfigOptions.key("execution.state-recovery.from-local")
          .booleanType()
          .defaultValue(false)
          .withDescription(
              "Task-local recovery: a subtask restarted in the same TaskManager restores its keyed"
                  + " state from the local copy of its last snapshot (verified against the"
                  + " checkpoint's sizes and CRC-32 checksums; the checkpoint storage is read when"
                  + " there is no usable copy) instead of downloading it. Also turns on"
                  + " execution.checkpointing.local-backup.enabled unless that is set. RocksDB"
                  + " backend with native (incremental or full) checkpoints only.")
          .withDeprecatedKeys("state.backend.local-recovery");

  public static final ConfigOption<Boolean> LOCAL_BACKUP_ENABLED =
      ConfigOptions.key("execution.checkpointing.local-backup.enabled")
          .booleanType()
          .defaultValue(false)
          .withDescription(
              "Keep a local copy of each subtask's last snapshot on the TaskManager's disk, for"
                  + " task-local recovery. Unset: as execution.state-recovery.from-local.");

  public static final ConfigOption<String> LOCAL_BACKUP_DIRECTORIES =
      ConfigOptions.key("execution.checkpointing.local-backup.dirs")
          .stringType()
          .noDefaultValue()
          .withDescription(
              "Root directories (separated by ',' or the path separator) of the local copies of"
                  + " snapshots kept for task-local recovery; subtasks are spread over them."
                  + " Unset: <java.io.tmpdir>/weir-localState.")
          .withDeprecatedKeys("taskmanager.state.local.root-dirs");

  /**
   * Whether snapshots keep a local copy: {@link #LOCAL_BACKUP_ENABLED} when set, else {@link
   * #LOCAL_RECOVERY}, as in Flink.
   */
  public static boolean localBackup(Configuration conf) {
    return conf.contains(LOCAL_BACKUP_ENABLED)
        ? conf.get(LOCAL_BACKUP_ENABLED)
        : conf.get(LOCAL_RECOVERY);
  }
}
