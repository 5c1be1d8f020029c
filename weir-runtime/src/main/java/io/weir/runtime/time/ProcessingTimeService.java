package io.weir.runtime.time;

/**
 * The wall clock of a task and callbacks at given times. Callbacks run on the task thread, between
 * records, through the task's mailbox; so they may touch state.
 */
public interface ProcessingTimeService {

  long getCurrentProcessingTime();

  /** Runs {@code callback} on the task thread at or after {@code timestamp} (epoch millis). */
  Cancellable registerTimer(long timestamp, Callback callback);

  /** A timer callback; gets the time it was registered for. */
  @FunctionalInterface
  interface Callback {
    void onProcessingTime(long timestamp) throws Exception;
  }

  /** A registered callback that may be withdrawn. */
  interface Cancellable {
    void cancel();
  }
}
