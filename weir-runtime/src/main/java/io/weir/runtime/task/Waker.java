package io.weir.runtime.task;

import java.util.concurrent.locks.LockSupport;

/**
 * Wakes one task thread when something it waits for happens: input arrived, a credit came back,
 * mail was put in its mailbox. Any thread may {@link #signal}; only the owner {@link #await}s. A
 * signal given before the owner waits is not lost.
 */
public final class Waker {

  private volatile Thread owner;
  private volatile boolean signalled;

  /** Binds the waker to the thread that will wait on it. */
  public void bindTo(Thread thread) {
    this.owner = thread;
  }

  public void signal() {
    if (!signalled) {
      signalled = true;
      Thread t = owner;
      if (t != null) {
        LockSupport.unpark(t);
      }
    }
  }

  /**
   * Waits until signalled or until {@code deadlineNanos} ({@link System#nanoTime} based; {@code
   * Long.MAX_VALUE} for no deadline), then clears the signal. The caller re-checks its conditions
   * afterwards: wake-ups may be spurious.
   */
  public void await(long deadlineNanos) {
    if (!signalled) {
      if (deadlineNanos == Long.MAX_VALUE) {
        LockSupport.park(this);
      } else {
        long wait = deadlineNanos - System.nanoTime();
        if (wait > 0) {
          LockSupport.parkNanos(this, wait);
        }
      }
    }
    signalled = false;
  }
}
