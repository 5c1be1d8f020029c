package io.weir.testjobs;

import io.weir.api.RestartStrategy;
import io.weir.api.StreamEnvironment;
import io.weir.api.sink.DiscardingSink;
import java.time.Duration;

/**
 * A job whose {@code main} depends on the process that runs it: an operator is named after the
 * clock, so the JobManager and every TaskManager build differently named plans. With a restart
 * strategy of many attempts, to show that the difference fails the job at once.
 */
public final class ClockNamedJob {

  private ClockNamedJob() {}

  public static void main(String[] args) throws Exception {
    StreamEnvironment env = StreamEnvironment.create();
    env.setRestartStrategy(RestartStrategy.fixedDelay(1000, Duration.ofMillis(10)));
    env.fromSequence(1, 10)
        .map(n -> n + 1)
        .name("stamped-" + System.nanoTime())
        .sinkTo(new DiscardingSink<>());
    env.execute("clock-named");
  }
}
