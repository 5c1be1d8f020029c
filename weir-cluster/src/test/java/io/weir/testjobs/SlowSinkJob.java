package io.weir.testjobs;

import io.weir.api.CheckpointingMode;
import io.weir.api.StreamEnvironment;
import io.weir.api.functions.MapFunction;
import io.weir.api.sink.DiscardingSink;
import java.time.Duration;

/**
 * A job shipped to the cluster as a jar: an unbounded fast source keyed into a slow map (a
 * millisecond per record) and a discarding sink, with unaligned checkpoints every 200 ms, so that
 * the keyed exchange between the TaskManagers runs under backpressure. Argument: checkpoint storage
 * URI.
 */
public final class SlowSinkJob {

  private SlowSinkJob() {}

  /** Takes a millisecond per record. */
  public static final class Slow implements MapFunction<Long, Long> {
    private static final long serialVersionUID = 1L;

    @Override
    public Long map(Long value) throws Exception {
      Thread.sleep(1);
      return value;
    }
  }

  public static void main(String[] args) throws Exception {
    StreamEnvironment env = StreamEnvironment.create();
    env.enableCheckpointing(Duration.ofMillis(200), CheckpointingMode.EXACTLY_ONCE);
    env.getCheckpointConfig().enableUnalignedCheckpoints().setCheckpointStorage(args[0]);
    env.fromSequence(1, Long.MAX_VALUE)
        .keyBy(v -> v % 16)
        .map(new Slow())
        .name("Slow")
        .sinkTo(new DiscardingSink<>());
    env.execute("slow-sink");
  }
}
