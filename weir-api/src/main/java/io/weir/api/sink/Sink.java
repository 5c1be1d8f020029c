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
   * once, on the submitting side, on the sink object given to {@code sinkTo}. Does nothing by
   * default.
   *
   * @throws IllegalArgumentException naming the settings at fault
   */
  default void validate(Configuration jobConfiguration) {}
}
