package io.weir.cluster.rest.messages;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.Collection;
import java.util.Map;

/**
 * A job as {@code GET /jobs/overview} lists it, with Flink's field names where Flink has the field.
 *
 * @param jid the job's id
 * @param name its name
 * @param state its {@code JobStatus}
 * @param startTime when it was submitted, epoch millis
 * @param endTime when it ended, or -1 while it runs
 * @param duration from its start until it ended, or until now
 * @param now the JobManager's clock when it answered
 * @param entryClass the class whose {@code main} submitted it
 * @param jarId the jar it came from
 * @param metrics its accumulated metrics once it finished, else absent
 * @param failure why it failed, once it has, else absent
 * @param tasks its subtasks by state, in {@code /jobs/overview} (absent elsewhere, and when its
 *     TaskManagers could not be asked)
 */
public record JobSummary(
    String jid,
    String name,
    String state,
    @JsonProperty("start-time") long startTime,
    @JsonProperty("end-time") long endTime,
    long duration,
    long now,
    String entryClass,
    String jarId,
    @JsonInclude(JsonInclude.Include.NON_NULL) Map<String, Long> metrics,
    @JsonInclude(JsonInclude.Include.NON_NULL) String failure,
    @JsonInclude(JsonInclude.Include.NON_NULL) Tasks tasks) {

  /** A summary without its subtasks' states. */
  public JobSummary(
      String jid,
      String name,
      String state,
      long startTime,
      long endTime,
      long duration,
      long now,
      String entryClass,
      String jarId,
      Map<String, Long> metrics,
      String failure) {
    this(
        jid,
        name,
        state,
        startTime,
        endTime,
        duration,
        now,
        entryClass,
        jarId,
        metrics,
        failure,
        null);
  }

  /** This summary with its subtasks' states. */
  public JobSummary withTasks(Tasks tasks) {
    return new JobSummary(
        jid,
        name,
        state,
        startTime,
        endTime,
        duration,
        now,
        entryClass,
        jarId,
        metrics,
        failure,
        tasks);
  }

  /**
   * How many of a job's subtasks are in each of Flink's execution states: Flink's {@code tasks} of
   * a job in {@code /jobs/overview}. A job whose state is RUNNING while some are {@code scheduled}
   * waits for slots.
   *
   * @param total all its subtasks
   */
  public record Tasks(
      int total,
      int created,
      int scheduled,
      int deploying,
      int running,
      int finished,
      int canceling,
      int canceled,
      int failed,
      int reconciling,
      int initializing) {

    /**
     * The counts of {@code total} subtasks, {@code states} being those whose state is known (as
     * Flink's execution states by name); the others are counted as CREATED.
     *
     * @throws IllegalArgumentException for a state that is none of Flink's execution states
     */
    public static Tasks of(int total, Collection<String> states) {
      int[] counts = new int[10];
      for (String state : states) {
        int i =
            switch (state) {
              case "CREATED" -> 0;
              case "SCHEDULED" -> 1;
              case "DEPLOYING" -> 2;
              case "RUNNING" -> 3;
              case "FINISHED" -> 4;
              case "CANCELING" -> 5;
              case "CANCELED" -> 6;
              case "FAILED" -> 7;
              case "RECONCILING" -> 8;
              case "INITIALIZING" -> 9;
              default ->
                  throw new IllegalArgumentException(
                      "'" + state + "' is none of Flink's execution states");
            };
        counts[i]++;
      }
      int all = Math.max(total, states.size());
      counts[0] += all - states.size();
      return new Tasks(
          all, counts[0], counts[1], counts[2], counts[3], counts[4], counts[5], counts[6],
          counts[7], counts[8], counts[9]);
    }
  }
}
