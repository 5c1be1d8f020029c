package io.weir.benchmarks;

/**
 * The frame of every workload main: runs the measurement, prints the JVM's peak RSS ({@link
 * PeakRss}, after the measurement so that it covers all of it), then ends the JVM with 0, or with 1
 * after printing the failure. Ending explicitly matters: an engine that leaves a non-daemon thread
 * behind (after a failure, or after a clean finish) would otherwise keep the child alive until the
 * runner's timeout.
 */
public final class ChildMain {
  private ChildMain() {}

  /** A measurement that may throw. */
  @FunctionalInterface
  public interface Body {
    void run() throws Exception;
  }

  public static void run(Body body) {
    int status = 0;
    try {
      body.run();
      PeakRss.ofThisProcessKb().ifPresent(kb -> System.out.println(PeakRss.line(kb)));
    } catch (Throwable t) { // any failure, errors included, must end the child
      t.printStackTrace();
      status = 1;
    }
    System.out.flush();
    System.err.flush();
    System.exit(status);
  }
}
