package io.weir.runtime.testing;

import io.weir.runtime.network.RecordWriter;

/** One step of a harness script: an element on an input, or processing time moving on. */
sealed interface Step {

  /** A short description for failure messages. */
  String describe();

  /**
   * An element arriving on an input.
   *
   * @param input 1 or 2
   * @param value the element (shared by every run: operators must not mutate their input)
   * @param timestamp its event timestamp, or {@link RecordWriter#NO_TIMESTAMP}
   */
  record Element(int input, Object value, long timestamp) implements Step {
    @Override
    public String describe() {
      return "element "
          + Outputs.show(value)
          + " on input "
          + input
          + (timestamp == RecordWriter.NO_TIMESTAMP ? "" : " with timestamp " + timestamp);
    }
  }

  /**
   * The processing-time clock moves to {@code time}; due processing-time timers fire.
   *
   * @param time the new time
   */
  record AdvanceProcessingTime(long time) implements Step {
    @Override
    public String describe() {
      return "processing time advanced to " + time;
    }
  }

  /**
   * A watermark arriving: event time moves to {@code timestamp}; due event-time timers fire.
   *
   * @param timestamp the watermark
   */
  record Watermark(long timestamp) implements Step {
    @Override
    public String describe() {
      return "watermark " + timestamp;
    }
  }
}
