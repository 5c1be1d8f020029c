package io.weir.api.sink;

/**
 * What a sink writer knows of where it runs.
 *
 * @param subtaskIndex 0-based index of this writer's subtask
 * @param parallelism number of parallel writers
 * @param attemptNumber 0 for the first run, incremented on every restart
 */
public record WriterInitContext(int subtaskIndex, int parallelism, int attemptNumber) {}
