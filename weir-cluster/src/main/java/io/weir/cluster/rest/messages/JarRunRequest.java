package io.weir.cluster.rest.messages;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.weir.api.config.CheckpointingOptions;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code POST /jars/:jarid/run}: which program to run and how; every field may be left out.
 *
 * @param entryClass the class with {@code main}; null: the jar's {@code Main-Class}
 * @param programArgsList its arguments
 * @param parallelism {@code parallelism.default} of the job, or null
 * @param configuration job settings over the job's own (Weir's client sends these)
 * @param flinkConfiguration the same under Flink's name; wins when given
 * @param savepointPath Flink's field: the savepoint or retained checkpoint to start from ({@code
 *     execution.state-recovery.path}), over the settings
 * @param allowNonRestoredState Flink's field: {@code
 *     execution.state-recovery.ignore-unclaimed-state}
 * @param claimMode Flink's field ({@code restoreMode} before Flink 2.0): {@code
 *     execution.state-recovery.claim-mode}
 * @param restoreMode the older name of {@code claimMode}
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record JarRunRequest(
    String entryClass,
    List<String> programArgsList,
    Integer parallelism,
    Map<String, String> configuration,
    Map<String, String> flinkConfiguration,
    String savepointPath,
    Boolean allowNonRestoredState,
    String claimMode,
    String restoreMode) {

  /** A run request with job settings and nothing of Flink's restore fields. */
  public JarRunRequest(
      String entryClass,
      List<String> programArgsList,
      Integer parallelism,
      Map<String, String> configuration,
      Map<String, String> flinkConfiguration) {
    this(
        entryClass,
        programArgsList,
        parallelism,
        configuration,
        flinkConfiguration,
        null,
        null,
        null,
        null);
  }

  /**
   * The job settings given, under either name, with Flink's restore fields over them; empty when
   * none.
   */
  public Map<String, String> settings() {
    Map<String, String> given = flinkConfiguration != null ? flinkConfiguration : configuration;
    Map<String, String> settings = new LinkedHashMap<>(given == null ? Map.of() : given);
    if (savepointPath != null) {
      settings.put(CheckpointingOptions.SAVEPOINT_PATH.key(), savepointPath);
    }
    if (allowNonRestoredState != null) {
      settings.put(
          CheckpointingOptions.SAVEPOINT_IGNORE_UNCLAIMED_STATE.key(),
          allowNonRestoredState.toString());
    }
    String mode = claimMode != null ? claimMode : restoreMode;
    if (mode != null) {
      settings.put(CheckpointingOptions.RECOVERY_CLAIM_MODE.key(), mode);
    }
    return settings;
  }

  /** The program's arguments; empty when none. */
  public List<String> args() {
    return programArgsList == null ? List.of() : programArgsList;
  }
}
