package io.weir.api.source;

/** Whether a source ends. A job whose sources are all bounded finishes when they have ended. */
public enum Boundedness {
  /** The source ends after a finite number of records. */
  BOUNDED,
  /** The source runs until the job is cancelled. */
  CONTINUOUS_UNBOUNDED
}
