package io.weir.runtime.task;

import io.weir.api.config.Configuration;
import io.weir.api.config.CoreOptions;
import io.weir.runtime.network.RecordWriter;
import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Sends a task's partly filled output buffers within {@code execution.buffer-timeout.interval}
 * (Flink's output flusher), as mail, so that only the task's thread touches its writers: the timer
 * ticks at half the timeout and each tick sends the buffers already there at the tick before, so a
 * record waits less than the timeout and a buffer that fills between two ticks goes out full. With
 * {@code execution.buffer-flush-on-idle} a task whose input runs dry sends them at once.
 */
final class OutputFlusher {

  private final RecordWriter<?>[] writers;
  private final boolean flushOnIdle;
  private final AtomicBoolean flushPending = new AtomicBoolean();
  private ScheduledFuture<?> ticks;

  /** For a task with {@code writers}, configured by the job's {@code conf}. */
  OutputFlusher(RecordWriter<?>[] writers, Configuration conf) {
    this.writers = writers;
    // A task with no input left would otherwise park with records in partly filled buffers until
    // the timer's tick; sending them first costs a busy task nothing (its input never runs dry)
    // and takes the buffer timeout out of the latency of a job that keeps up with its input.
    Duration timeout = CoreOptions.bufferTimeout(conf);
    this.flushOnIdle =
        writers.length > 0
            && (timeout == null || !timeout.isZero())
            && conf.get(CoreOptions.BUFFER_FLUSH_ON_IDLE);
  }

  /**
   * Starts the ticks on {@code timer}, which put the flush into {@code mailbox}; nothing to do
   * without writers, with a zero timeout (writers then flush after every record) or none (null:
   * {@code execution.buffer-timeout.enabled} is false, buffers go out when full).
   */
  void start(Duration timeout, ScheduledExecutorService timer, Mailbox mailbox) {
    if (writers.length == 0 || timeout == null || timeout.isZero()) {
      return;
    }
    long tickMicros = Math.max(500, timeout.toNanos() / 2_000);
    ticks =
        timer.scheduleAtFixedRate(
            () -> {
              if (mayFlushAged() && flushPending.compareAndSet(false, true)) {
                mailbox.put(this::flushAged);
              }
            },
            tickMicros,
            tickMicros,
            TimeUnit.MICROSECONDS);
  }

  /** The input ran dry: with flush-on-idle, sends every partly filled buffer now. Task thread. */
  void inputIdle() {
    if (flushOnIdle) {
      for (RecordWriter<?> writer : writers) {
        writer.flushAll();
      }
    }
  }

  /** Stops the ticks. */
  void stop() {
    if (ticks != null) {
      ticks.cancel(false);
    }
  }

  private boolean mayFlushAged() {
    for (RecordWriter<?> writer : writers) {
      if (writer.mayFlushAged()) {
        return true;
      }
    }
    return false;
  }

  private void flushAged() {
    flushPending.set(false);
    for (RecordWriter<?> writer : writers) {
      writer.flushAged();
    }
  }
}
