package io.weir.runtime.classloading;

import java.util.concurrent.ThreadFactory;

/**
 * Daemon threads of one job, whose context class loader is the job's user-code class loader from
 * the start: a thread of an executor otherwise inherits the context class loader of whichever
 * thread happened to make it, which on a TaskManager or JobManager is a control-plane thread that
 * sees none of the job's classes.
 */
public final class UserCodeThreads {

  private UserCodeThreads() {}

  /** Daemon threads named {@code name}, with {@code userClassLoader} as context class loader. */
  public static ThreadFactory factory(String name, ClassLoader userClassLoader) {
    return runnable -> {
      Thread t = new Thread(runnable, name);
      t.setDaemon(true);
      t.setContextClassLoader(userClassLoader);
      return t;
    };
  }
}
