package io.weir.runtime.metrics;

/**
 * Which subtask a {@link TaskIOMetrics} belongs to: the tags its metrics are reported with.
 *
 * @param jobId the job's id
 * @param jobName the job's name
 * @param taskName the task (a chain of operators), e.g. {@code "Keyed Process -> Sink"}
 * @param subtaskIndex 0-based
 * @param attemptNumber the job's attempt the subtask belongs to: a restart starts another
 */
public record TaskScope(
    String jobId, String jobName, String taskName, int subtaskIndex, int attemptNumber) {}
