package io.weir.runtime.classloading;

/**
 * Sets the context class loader of the current thread until {@link #close()} puts the previous one
 * back, as Flink's {@code TemporaryClassLoaderContext}: for a thread that is not the job's own (a
 * control-plane thread deploying tasks, say) while it runs user code or reads user types.
 *
 * <pre>{@code
 * try (var ignored = TemporaryClassLoaderContext.of(userClassLoader)) {
 *   // user code
 * }
 * }</pre>
 *
 * <p>Only the thread that made it may close it.
 */
public final class TemporaryClassLoaderContext implements AutoCloseable {

  private final Thread thread;
  private final ClassLoader previous;

  private TemporaryClassLoaderContext(Thread thread, ClassLoader previous) {
    this.thread = thread;
    this.previous = previous;
  }

  /** Makes {@code loader} the current thread's context class loader until closed. */
  public static TemporaryClassLoaderContext of(ClassLoader loader) {
    Thread thread = Thread.currentThread();
    ClassLoader previous = thread.getContextClassLoader();
    thread.setContextClassLoader(loader);
    return new TemporaryClassLoaderContext(thread, previous);
  }

  /** Puts the context class loader back as it was. */
  @Override
  public void close() {
    thread.setContextClassLoader(previous);
  }
}
