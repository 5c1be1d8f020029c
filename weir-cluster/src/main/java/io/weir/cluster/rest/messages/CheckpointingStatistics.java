package io.weir.cluster.rest.messages;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;

/**
 * {@code GET /jobs/:jobid/checkpoints}: counts, the latest of each kind, a summary and the history,
 * with Flink's field names.
 *
 * @param counts how many checkpoints ended how
 * @param summary figures over the completed checkpoints of the history
 * @param latest the latest completed checkpoint, savepoint, failure and restore
 * @param history every checkpoint the job master remembers, oldest first
 */
public record CheckpointingStatistics(
    Counts counts, Summary summary, Latest latest, List<Checkpoint> history) {

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
   * The latest of each kind; a field is left out while there is none.
   *
   * @param completed the latest completed checkpoint
   * @param savepoint the latest completed savepoint
   * @param failed the latest failed checkpoint or savepoint, with why
   * @param restored what the job's newest attempt that restored one restored
   */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record Latest(
      Checkpoint completed, Checkpoint savepoint, Checkpoint failed, Restored restored) {}

  /**
   * A restore, Flink's fields.
   *
   * @param id the checkpoint or savepoint restored
   * @param restoreTimestamp when the attempt that restored it was deployed, epoch millis
   * @param isSavepoint whether it was a savepoint
   * @param externalPath where it lives
   */
  public record Restored(
      long id,
      @JsonProperty("restore_timestamp") long restoreTimestamp,
      @JsonProperty("is_savepoint") boolean isSavepoint,
      @JsonProperty("external_path") String externalPath) {}

  /**
   * Minimum, maximum, average and percentiles of one figure over the completed checkpoints; all 0
   * while there is none.
   */
  public record Figures(long min, long max, long avg, long p50, long p90, long p99) {

    /** The figures of {@code values}. */
    public static Figures of(List<Long> values) {
      if (values.isEmpty()) {
        return new Figures(0, 0, 0, 0, 0, 0);
      }
      List<Long> sorted = values.stream().sorted().toList();
      long sum = 0;
      for (long v : sorted) {
        sum += v;
      }
      return new Figures(
          sorted.get(0),
          sorted.get(sorted.size() - 1),
          sum / sorted.size(),
          percentile(sorted, 0.50),
          percentile(sorted, 0.90),
          percentile(sorted, 0.99));
    }

    private static long percentile(List<Long> sorted, double q) {
      int index = (int) Math.ceil(q * sorted.size()) - 1;
      return sorted.get(Math.max(0, Math.min(sorted.size() - 1, index)));
    }
  }

  /** Flink's summary: figures over the completed checkpoints of the history (not savepoints). */
  public record Summary(
      @JsonProperty("checkpointed_size") Figures checkpointedSize,
      @JsonProperty("state_size") Figures stateSize,
      @JsonProperty("end_to_end_duration") Figures endToEndDuration) {}

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
      @JsonProperty("is_savepoint") boolean isSavepoint,
      @JsonInclude(JsonInclude.Include.NON_NULL) @JsonProperty("failure_message")
          String failureMessage,
      List<Subtask> subtasks,
      @JsonInclude(JsonInclude.Include.NON_NULL) @JsonProperty("critical_path")
          CriticalPath criticalPath) {}

  /**
   * What set a checkpoint's duration: the subtask whose acknowledgement arrived last and its
   * longest phase (see {@link io.weir.api.CheckpointStatistics#criticalPath()}).
   *
   * @param vertexId the subtask's vertex, as the plan names it
   * @param task its task's name
   * @param index its index (-1: the vertex's aggregate, for older checkpoints taken up from
   *     storage)
   * @param phase {@code start_delay}, {@code alignment}, {@code sync}, {@code async}, {@code
   *     acknowledgement} or {@code finalize} (the coordinator writing the metadata)
   * @param duration how long that phase took, millis
   * @param description in words, e.g. {@code "Count (3/4): alignment 1.8 s"}
   * @param advice what would shorten it, naming configuration keys
   */
  public record CriticalPath(
      @JsonProperty("vertex_id") String vertexId,
      String task,
      int index,
      String phase,
      long duration,
      String description,
      String advice) {}

  /**
   * {@code GET /jobs/:jobid/checkpoints/details/:checkpointid/subtasks/:vertexid}: one vertex's
   * subtasks in one checkpoint.
   *
   * @param id the checkpoint
   * @param status its status
   * @param vertexId the vertex
   * @param subtasks each of its subtasks that acknowledged
   */
  public record VertexCheckpoint(
      long id, String status, @JsonProperty("vertex_id") String vertexId, List<Subtask> subtasks) {}

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
   * @param vertexId its vertex, as the plan names it
   * @param ackTimestamp when the coordinator received its acknowledgement, epoch millis; -1 not yet
   * @param endToEndDuration from the trigger to that acknowledgement, millis; -1 not yet
   * @param filesWritten files its upload wrote to checkpoint storage for this checkpoint (not those
   *     an earlier incremental checkpoint uploaded, nor state inline in the metadata); -1 not known
   * @param commit its two-phase-commit sink's commit after the checkpoint completed; absent for a
   *     subtask without one, and until it reported
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
      @JsonProperty("checkpointed_size") long checkpointedSize,
      @JsonProperty("vertex_id") String vertexId,
      @JsonProperty("ack_timestamp") long ackTimestamp,
      @JsonProperty("end_to_end_duration") long endToEndDuration,
      @JsonProperty("files_written") int filesWritten,
      @JsonInclude(JsonInclude.Include.NON_NULL) Commit commit) {}

  /**
   * A sink subtask's commit on the checkpoint's completion: the timeline's segment after the
   * acknowledgement.
   *
   * @param notifiedTimestamp when the completion's notification reached the subtask, epoch millis
   *     (its TaskManager's clock)
   * @param duration how long its commit took, millis
   * @param failure why it failed (which fails the task); absent when it succeeded
   */
  public record Commit(
      @JsonProperty("notified_timestamp") long notifiedTimestamp,
      long duration,
      @JsonInclude(JsonInclude.Include.NON_NULL) String failure) {}
}
