package io.weir.runtime.taskexecutor;

/**
 * One deployment of one subtask: the job, the vertex, the subtask and the attempt of the job it
 * belongs to. Messages between the job master and task executors name tasks by it, so a message of
 * an attempt already given up is recognised and dropped.
 *
 * @param jobId the job, as 32 hex digits
 * @param vertex index of the job vertex
 * @param subtask subtask index
 * @param attempt the job's attempt (0 for the first deployment, +1 per restart)
 */
public record ExecutionAttemptId(String jobId, int vertex, int subtask, int attempt) {

  @Override
  public String toString() {
    return jobId + "/" + vertex + "/" + subtask + "#" + attempt;
  }
}
