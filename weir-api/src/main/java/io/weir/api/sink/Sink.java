package io.weir.api.sink;

import io.weir.api.config.Configuration;
import java.io.Serializable;

/** The end of a stream: one writer per parallel subtask. */
public interface Sink<T> extends Serializable {

  SinkWriter<T> createWriter(WriterInitContext context) throws Exception;

  /**
   * Checks this sink against the job's configuration when the job is submitted, before any task
   * runs, so that a setting that can only fail later (a transaction timeout shorter than a
   * checkpoint may take) fails the submission instead, with a message saying what to change. Runs
   * wherever the job's plan is built, on the sink object given to {@code sinkTo}, before it is
   * copied to the subtasks: on the submitting side, and again on each TaskManager, which rebuilds
   * the plan by running the program (with the job's configuration as submitted). Does nothing by
   * default.
   *
   * @throws IllegalArgumentException naming the settings at fault
   */
  default void validate(Configuration jobConfiguration) {}

  /**
   * Whether this sink's writers may keep an element, or change it, after {@link SinkWriter#write}
   * returns. Without object reuse ({@code pipeline.object-reuse}, off by default) an operator
   * chained before the sink may change or re-emit the object it emitted once the call returns, so
   * the engine hands a writer that keeps elements a copy of each mutable one. A sink whose writer
   * turns each element into bytes or text inside {@code write}, or drops it, and never changes it,
   * answers false and is handed the very object emitted, with no copy. True by default: the safe
   * answer for a writer that buffers elements.
   */
  default boolean keepsElements() {
    return true;
  }
}
