package io.weir.cluster.rest.messages;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.weir.runtime.metrics.RestoreProgress;
import java.util.List;

/**
 * {@code GET /jobs/:jobid/recovery}: how far the restore of the job's current attempt has come, in
 * total and per subtask. Flink has no such view (FLIP-384 adds traces of a restore after it ended);
 * the fields follow the kebab-case of Flink's REST messages.
 *
 * @param status {@code RESTORING} while some subtask still reads its state, {@code RESTORED} once
 *     every subtask of the attempt has it, {@code NONE} when the attempt started without state (or
 *     no subtask has reported yet)
 * @param checkpointId the checkpoint or savepoint restored; absent with {@code NONE}
 * @param total the subtasks' figures together: bytes and files summed, the duration and the time
 *     left of the slowest subtask; absent with {@code NONE}
 * @param subtasks every subtask that restores, by vertex and index
 */
public record JobRecovery(
    String status,
    @JsonProperty("checkpoint-id") @JsonInclude(JsonInclude.Include.NON_NULL) Long checkpointId,
    @JsonInclude(JsonInclude.Include.NON_NULL) Progress total,
    List<Subtask> subtasks) {

  /**
   * A restore's progress.
   *
   * @param bytesRead bytes read from the checkpoint storage and verified so far
   * @param bytesTotal bytes of the state to restore (a restore from a task-local copy reads fewer)
   * @param filesRead files read so far
   * @param filesTotal files of the state to restore
   * @param duration milliseconds the restore has taken so far, or took
   * @param estimatedTimeLeft milliseconds left at the rate so far: 0 once done, -1 before any byte
   *     was read
   * @param done whether the state is restored
   * @param recordsReplayed records read so far from the restored in-flight data of an unaligned
   *     checkpoint (its recorded input channels), which the subtasks process once {@code done}
   */
  public record Progress(
      @JsonProperty("bytes-read") long bytesRead,
      @JsonProperty("bytes-total") long bytesTotal,
      @JsonProperty("files-read") long filesRead,
      @JsonProperty("files-total") long filesTotal,
      long duration,
      @JsonProperty("estimated-time-left") long estimatedTimeLeft,
      boolean done,
      @JsonProperty("records-replayed") long recordsReplayed) {

    /** One subtask's progress as its TaskManager reported it. */
    public static Progress of(RestoreProgress.Sample s) {
      return new Progress(
          s.bytesRead(),
          s.bytesTotal(),
          s.filesRead(),
          s.filesTotal(),
          s.durationMillis(),
          s.estimatedMillisLeft(),
          s.done(),
          s.recordsReplayed());
    }

    /**
     * Several subtasks' progress together: bytes, files and records summed, the longest duration,
     * and the time left of the subtask that needs most (-1 while one not done has no estimate yet).
     */
    public static Progress together(List<RestoreProgress.Sample> samples) {
      long bytesRead = 0;
      long bytesTotal = 0;
      long filesRead = 0;
      long filesTotal = 0;
      long duration = 0;
      long left = 0;
      boolean done = true;
      long replayed = 0;
      for (RestoreProgress.Sample s : samples) {
        replayed += s.recordsReplayed();
        bytesRead += s.bytesRead();
        bytesTotal += s.bytesTotal();
        filesRead += s.filesRead();
        filesTotal += s.filesTotal();
        duration = Math.max(duration, s.durationMillis());
        long mine = s.estimatedMillisLeft();
        left = left < 0 || mine < 0 ? -1 : Math.max(left, mine);
        done &= s.done();
      }
      return new Progress(
          bytesRead, bytesTotal, filesRead, filesTotal, duration, left, done, replayed);
    }
  }

  /**
   * One subtask's restore.
   *
   * @param vertexId the vertex's id, as {@code GET /jobs/:jobid/plan} gives it
   * @param vertexName its name
   * @param subtask the subtask's index
   * @param status its execution state ({@code INITIALIZING} while it restores)
   * @param taskmanagerId the TaskManager that runs it
   * @param restore its progress
   */
  public record Subtask(
      @JsonProperty("vertex-id") String vertexId,
      @JsonProperty("vertex-name") String vertexName,
      int subtask,
      String status,
      @JsonProperty("taskmanager-id") String taskmanagerId,
      Progress restore) {}
}
