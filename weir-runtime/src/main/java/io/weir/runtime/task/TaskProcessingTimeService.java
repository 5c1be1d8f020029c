package io.weir.runtime.task;

import io.weir.runtime.time.ProcessingTimeService;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/** Processing time of one task: a shared timer thread puts the callbacks into the mailbox. */
final class TaskProcessingTimeService implements ProcessingTimeService {

  private final ScheduledExecutorService timer;
  private final Mailbox mailbox;

  TaskProcessingTimeService(ScheduledExecutorService timer, Mailbox mailbox) {
    this.timer = timer;
    this.mailbox = mailbox;
  }

  @Override
  public long getCurrentProcessingTime() {
    return System.currentTimeMillis();
  }

  @Override
  public Cancellable registerTimer(long timestamp, Callback callback) {
    long delay = Math.max(0, timestamp - System.currentTimeMillis());
    ScheduledFuture<?> future =
        timer.schedule(
            () -> mailbox.put(() -> callback.onProcessingTime(timestamp)),
            delay,
            TimeUnit.MILLISECONDS);
    return () -> future.cancel(false);
  }
}
