package io.weir.cluster.rest.messages;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;

/**
 * {@code GET /jobs/:jobid/checkpoints}: counts, the latest completed checkpoint and the history,
 * with Flink's field names.
 *
 * @param counts how many checkpoints ended how
 * @param latest the latest completed one, if any
 * @param history every checkpoint the job master remembers, oldest first
 */
public record CheckpointingStatistics(Counts counts, Latest latest, List<Checkpoint> history) {

  /**
   * Checkpoints by outcome.
   *
   * @param completed completed
   * @param failed failed
   * @param inProgress in progress
   * @param total all
   */
  public record Counts(
      long completed, long failed, @JsonProperty("in_progress") long inProgress, long total) {}

  /**
   * The latest completed checkpoint: {@code {}} while there is none.
   *
   * @param completed the checkpoint, or null
   */
  public record Latest(@JsonInclude(JsonInclude.Include.NON_NULL) Checkpoint completed) {}

  /**
   * One checkpoint.
   *
   * @param id its id
   * @param status {@code IN_PROGRESS}, {@code COMPLETED} or {@code FAILED}
   * @param isUnaligned whether it was unaligned
   * @param triggerTimestamp when it was triggered, epoch millis
   * @param endToEndDuration from its trigger to its last acknowledgement, millis
   * @param stateSize bytes of state it refers to
   * @param checkpointedSize bytes it wrote
   * @param externalPath where it lives, or null
   * @param subtasks each subtask's part
   */
  public record Checkpoint(
      long id,
      String status,
      @JsonProperty("is_unaligned") boolean isUnaligned,
      @JsonProperty("trigger_timestamp") long triggerTimestamp,
      @JsonProperty("end_to_end_duration") long endToEndDuration,
      @JsonProperty("state_size") long stateSize,
      @JsonProperty("checkpointed_size") long checkpointedSize,
      @JsonProperty("external_path") String externalPath,
      List<Subtask> subtasks) {}

  /**
   * One subtask's part of a checkpoint.
   *
   * @param task the task's name
   * @param index the subtask's index
   * @param startDelay from the trigger to the subtask's first barrier, millis
   * @param alignmentDuration its alignment, millis
   * @param unaligned whether it took the checkpoint unaligned
   * @param channelStateSize bytes of in-flight data it wrote
   * @param syncDuration its synchronous part, millis
   * @param asyncDuration its asynchronous part, millis
   * @param stateSize bytes of state it refers to
   * @param checkpointedSize bytes it wrote
   */
  public record Subtask(
      String task,
      int index,
      @JsonProperty("start_delay") long startDelay,
      @JsonProperty("alignment_duration") long alignmentDuration,
      boolean unaligned,
      @JsonProperty("channel_state_size") long channelStateSize,
      @JsonProperty("sync_duration") long syncDuration,
      @JsonProperty("async_duration") long asyncDuration,
      @JsonProperty("state_size") long stateSize,
      @JsonProperty("checkpointed_size") long checkpointedSize) {}
}
