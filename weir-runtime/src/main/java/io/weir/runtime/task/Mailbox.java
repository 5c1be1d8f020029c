package io.weir.runtime.task;

import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * Actions to run on a task thread between records: checkpoint triggers, timers, buffer flushes. Any
 * thread may {@link #put}; the task thread checks {@link #hasMail()} (one volatile read) per record
 * and runs the mail in order.
 */
public final class Mailbox {

  /** An action run on the task thread. */
  @FunctionalInterface
  public interface Mail {
    void run() throws Exception;
  }

  private final ConcurrentLinkedQueue<Mail> queue = new ConcurrentLinkedQueue<>();
  private final Waker waker;
  private volatile boolean hasMail;

  public Mailbox(Waker waker) {
    this.waker = waker;
  }

  public void put(Mail mail) {
    queue.add(mail);
    hasMail = true;
    waker.signal();
  }

  public boolean hasMail() {
    return hasMail;
  }

  /** Runs every mail put so far. Task thread only. */
  public void runAll() throws Exception {
    hasMail = false;
    Mail mail;
    while ((mail = queue.poll()) != null) {
      mail.run();
    }
  }
}
