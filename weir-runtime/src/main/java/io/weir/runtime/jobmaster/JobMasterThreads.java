package io.weir.runtime.jobmaster;

import io.weir.runtime.classloading.UserCodeThreads;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The two threads of one job master, daemons named after the job: the timer (the coordinator's
 * timers, restarts, the task executors' answers) and the io thread (deletes of checkpoint files, in
 * order, off the coordinator's lock). Both have the job's user-code class loader as context class
 * loader: a restart on the timer creates the sources' splits and reads restored ones with the job's
 * code. Any thread.
 */
final class JobMasterThreads {

  private static final Logger LOG = LoggerFactory.getLogger(JobMasterThreads.class);

  private final String jobName;
  private final ScheduledExecutorService timer;
  private final ExecutorService io;

  JobMasterThreads(String jobName, ClassLoader userClassLoader) {
    this.jobName = jobName;
    this.timer =
        Executors.newSingleThreadScheduledExecutor(
            UserCodeThreads.factory("weir-jobmaster-" + jobName, userClassLoader));
    this.io =
        Executors.newSingleThreadExecutor(
            UserCodeThreads.factory("weir-io-" + jobName, userClassLoader));
  }

  ScheduledExecutorService timer() {
    return timer;
  }

  /**
   * Runs {@code action} on the timer in {@code delayMillis}; returns what cancels it. Once the
   * threads are shut down it runs nothing.
   */
  Runnable schedule(Runnable action, long delayMillis) {
    if (timer.isShutdown()) {
      return () -> {};
    }
    ScheduledFuture<?> f = timer.schedule(action, delayMillis, TimeUnit.MILLISECONDS);
    return () -> f.cancel(false);
  }

  /** Runs {@code command} on the io thread; once the job has ended, the last ones on the caller. */
  void io(Runnable command) {
    try {
      io.execute(command);
    } catch (RejectedExecutionException e) {
      command.run();
    }
  }

  /**
   * Lets the deletes of checkpoint files end before the job reports its end. The job often ends on
   * the thread of its last task, which a cancellation may have interrupted: an interrupt must not
   * cut the wait short (the deletes would land after the result), so it is kept for later.
   */
  void drainIo() {
    io.shutdown();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    boolean interrupted = false;
    while (true) {
      try {
        if (!io.awaitTermination(deadline - System.nanoTime(), TimeUnit.NANOSECONDS)) {
          LOG.warn("Deleting checkpoint files of job '{}' still runs after 30 s", jobName);
        }
        break;
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  /** Stops the timer at once; the io thread ends after the deletes it was given. */
  void shutdown() {
    timer.shutdownNow();
    io.shutdown();
  }

  /** Stops both threads at once: deletes not yet run are dropped. */
  void shutdownNow() {
    timer.shutdownNow();
    io.shutdownNow();
  }
}
