package io.weir.api.functions;

/** Which clock a timer follows. */
public enum TimeDomain {
  /** Watermarks derived from the data. */
  EVENT_TIME,
  /** The wall clock of the machine running the task. */
  PROCESSING_TIME
}
