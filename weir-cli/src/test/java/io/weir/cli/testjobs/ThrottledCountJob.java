package io.weir.cli.testjobs;

import io.weir.api.StreamEnvironment;
import io.weir.api.functions.Collector;
import io.weir.api.functions.KeyedProcessFunction;
import io.weir.api.functions.MapFunction;
import io.weir.api.functions.OpenContext;
import io.weir.api.sink.DiscardingSink;
import io.weir.api.state.ValueState;
import io.weir.api.state.ValueStateDescriptor;
import io.weir.api.typeutils.Types;
import java.time.Duration;

/**
 * A job the CLI tests ship to a cluster as a jar: an endless, throttled sequence counted per key,
 * running until it is stopped. Argument: the checkpoint storage URI; without it, the storage comes
 * from the job's settings ({@code -D}).
 */
public final class ThrottledCountJob {

  private ThrottledCountJob() {}

  /** Sleeps a millisecond every 50 records. */
  public static final class Throttle implements MapFunction<Long, Long> {
    private static final long serialVersionUID = 1L;

    @Override
    public Long map(Long value) throws Exception {
      if (value % 50 == 0) {
        Thread.sleep(1);
      }
      return value;
    }
  }

  /** Counts per key. */
  public static final class Count extends KeyedProcessFunction<Long, Long, Long> {
    private static final long serialVersionUID = 1L;
    private transient ValueState<Long> count;

    @Override
    public void open(OpenContext openContext) {
      count = getRuntimeContext().getState(new ValueStateDescriptor<>("count", Types.LONG));
    }

    @Override
    public void processElement(Long value, Context ctx, Collector<Long> out) throws Exception {
      Long c = count.value();
      count.update(c == null ? 1 : c + 1);
      out.collect(value);
    }
  }

  public static void main(String[] args) throws Exception {
    StreamEnvironment env = StreamEnvironment.create();
    env.enableCheckpointing(Duration.ofMillis(200));
    if (args.length > 0) {
      env.getCheckpointConfig().setCheckpointStorage(args[0]);
    }
    env.fromSequence(0, Long.MAX_VALUE / 2)
        .uid("numbers")
        .map(new Throttle())
        .uid("throttle")
        .keyBy(v -> v % 10, Types.LONG)
        .process(new Count())
        .uid("count")
        .sinkTo(new DiscardingSink<>())
        .uid("discard");
    env.execute("throttled-count");
  }
}
