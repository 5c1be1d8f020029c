package io.weir.testjobs;

import io.weir.api.CheckpointingMode;
import io.weir.api.RestartStrategy;
import io.weir.api.StreamEnvironment;
import io.weir.api.functions.MapFunction;
import io.weir.api.sink.DiscardingSink;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * A job shipped to the cluster as a jar, which fails once each time a test asks: an unbounded
 * throttled sequence, a map that throws when it finds the signal file (and deletes it, so that one
 * subtask throws once), the keyed count of {@link KeyedCountJob} and a discarding sink, with
 * checkpoints every 200 ms and restarts. Arguments: checkpoint storage URI, signal file.
 */
public final class FailOnSignalJob {

  private FailOnSignalJob() {}

  /** Throws once the signal file appears, looking every 100 records. */
  public static final class FailOnSignal implements MapFunction<Long, Long> {
    private static final long serialVersionUID = 1L;
    private final String signal;

    FailOnSignal(String signal) {
      this.signal = signal;
    }

    @Override
    public Long map(Long value) throws Exception {
      if (value % 100 == 0 && Files.deleteIfExists(Path.of(signal))) {
        throw new IllegalStateException("injected failure at record " + value);
      }
      if (value % 10 == 0) {
        Thread.sleep(1);
      }
      return value;
    }
  }

  public static void main(String[] args) throws Exception {
    StreamEnvironment env = StreamEnvironment.create();
    env.enableCheckpointing(Duration.ofMillis(200), CheckpointingMode.EXACTLY_ONCE);
    env.getCheckpointConfig().setCheckpointStorage(args[0]);
    env.setRestartStrategy(RestartStrategy.fixedDelay(5, Duration.ofMillis(100)));
    env.fromSequence(1, Long.MAX_VALUE)
        .map(new FailOnSignal(args[1]))
        .name("FailOnSignal")
        .keyBy(v -> v % 10)
        .process(new KeyedCountJob.Count())
        .name("Count")
        .sinkTo(new DiscardingSink<>())
        .name("Discard");
    env.execute("fail-on-signal");
  }
}
