package io.weir.api.source;

/**
 * What a source reader knows of where it runs.
 *
 * @param subtaskIndex 0-based index of this reader's subtask
 * @param parallelism number of parallel readers
 * @param attemptNumber 0 for the first run, incremented on every restart
 */
public record SourceReaderContext(int subtaskIndex, int parallelism, int attemptNumber) {

  /** {@link #subtaskIndex()}, by the name Flink's {@code SourceReaderContext} gives it. */
  public int getIndexOfSubtask() {
    return subtaskIndex;
  }

  /** {@link #parallelism()}, by the name Flink's {@code SourceReaderContext} gives it. */
  public int currentParallelism() {
    return parallelism;
  }
}
