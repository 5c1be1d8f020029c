package io.weir.testjobs;

import io.weir.api.CheckpointingMode;
import io.weir.api.RestartStrategy;
import io.weir.api.StreamEnvironment;
import io.weir.api.functions.Collector;
import io.weir.api.functions.KeyedProcessFunction;
import io.weir.api.functions.MapFunction;
import io.weir.api.functions.OpenContext;
import io.weir.api.metrics.Counter;
import io.weir.api.source.NumberSequenceSource;
import io.weir.api.state.ValueState;
import io.weir.api.state.ValueStateDescriptor;
import io.weir.api.typeutils.Types;
import io.weir.connector.files.FileSink;
import java.nio.file.Path;
import java.time.Duration;

/**
 * A job shipped to the cluster as a jar: numbers 1..N, throttled, keyed by {@code n % keys}, a
 * count per key in keyed state, and every count written as {@code key,count} to an exactly-once
 * file sink. Arguments: output directory, N, keys, checkpoint storage URI, records per millisecond
 * of sleep, and optionally a gate file: the input then ends only once that file exists ({@link
 * GatedEnd}).
 */
public final class KeyedCountJob {

  private KeyedCountJob() {}

  /** Sleeps a millisecond every {@code every} records, so the job runs long enough to be killed. */
  public static final class Throttle implements MapFunction<Long, Long> {
    private static final long serialVersionUID = 1L;
    private final int every;

    Throttle(int every) {
      this.every = every;
    }

    @Override
    public Long map(Long value) throws Exception {
      if (value % every == 0) {
        Thread.sleep(1);
      }
      return value;
    }
  }

  /** Counts per key and emits {@code key,count}. */
  public static final class Count extends KeyedProcessFunction<Long, Long, String> {
    private static final long serialVersionUID = 1L;
    private transient ValueState<Long> count;
    private transient Counter counted;

    @Override
    public void open(OpenContext openContext) {
      count = getRuntimeContext().getState(new ValueStateDescriptor<>("count", Types.LONG));
      counted = getRuntimeContext().getMetricGroup().counter("countedRecords");
    }

    @Override
    public void processElement(Long value, Context ctx, Collector<String> out) throws Exception {
      counted.inc();
      Long current = count.value();
      long next = (current == null ? 0 : current) + 1;
      count.update(next);
      out.collect(ctx.getCurrentKey() + "," + next);
    }
  }

  public static void main(String[] args) throws Exception {
    Path out = Path.of(args[0]);
    long n = Long.parseLong(args[1]);
    long keys = Long.parseLong(args[2]);
    String storage = args[3];
    int every = Integer.parseInt(args[4]);
    StreamEnvironment env = StreamEnvironment.create();
    env.enableCheckpointing(Duration.ofMillis(300), CheckpointingMode.EXACTLY_ONCE);
    env.getCheckpointConfig().setCheckpointStorage(storage);
    env.setRestartStrategy(RestartStrategy.fixedDelay(20, Duration.ofMillis(100)));
    NumberSequenceSource numbers = new NumberSequenceSource(1, n);
    // With a gate file (a sixth argument) the input ends only once the file exists.
    var source =
        args.length > 5
            ? env.fromSource(new GatedEnd<>(numbers, args[5]), "Sequence Source", Types.LONG)
            : env.fromSource(numbers, "Sequence Source", Types.LONG);
    source
        .map(new Throttle(every))
        .name("Throttle")
        .keyBy(v -> v % keys)
        .process(new Count())
        .name("Count")
        .setMaxParallelism(64) // its own, below the job's 128: REST shows each vertex's
        .sinkTo(FileSink.exactlyOnce(out))
        .name("Files");
    env.execute("keyed-count");
  }
}
