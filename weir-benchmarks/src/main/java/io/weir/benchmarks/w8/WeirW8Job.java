package io.weir.benchmarks.w8;

import io.weir.api.StreamEnvironment;
import io.weir.api.config.Configuration;
import io.weir.api.functions.Collector;
import io.weir.api.functions.KeyedProcessFunction;
import io.weir.api.functions.MapFunction;
import io.weir.api.functions.OpenContext;
import io.weir.api.sink.DiscardingSink;
import io.weir.api.state.ValueState;
import io.weir.api.state.ValueStateDescriptor;
import io.weir.api.tuple.Tuple2;
import io.weir.api.typeutils.Types;

/**
 * W8's job on Weir: W1's keyed count ({@code io.weir.benchmarks.w1.WeirKeyedCount}), parallelism 2,
 * as a program that runs the same in the benchmark JVM (embedded cluster) and from the job jar on a
 * cluster (the JobManager and TaskManagers run this {@code main}). It uses nothing of the benchmark
 * module but this package's {@link FirstRecordMarker}, which the jar carries too.
 *
 * <p>Arguments: {@code <records> <marker-dir or -> <trace-dir or -> [key=value]...}, the settings
 * being the job's; a marker directory gets {@link FirstRecordMarker}'s stamps, a trace directory
 * {@link ProcessingTrace}'s.
 */
public final class WeirW8Job {
  private WeirW8Job() {}

  public static void main(String[] args) throws Exception {
    long records = Long.parseLong(args[0]);
    String markerDir = args[1].equals("-") ? "" : args[1];
    String traceDir = args[2].equals("-") ? "" : args[2];
    Configuration conf = new Configuration();
    for (int i = 3; i < args.length; i++) {
      int eq = args[i].indexOf('=');
      conf.setString(args[i].substring(0, eq), args[i].substring(eq + 1));
    }
    var env = StreamEnvironment.create(conf);
    env.setParallelism(2);
    env.fromSequence(1, records)
        .map(new ToKey())
        .keyBy(k -> k)
        .process(new CountPerKey(markerDir, traceDir))
        .returns(Types.TUPLE(Types.LONG, Types.LONG))
        .sinkTo(new DiscardingSink<>());
    env.execute("W8");
  }

  /** W1's key of record {@code i}. */
  public static final class ToKey implements MapFunction<Long, Long> {
    private static final long serialVersionUID = 1L;

    @Override
    public Long map(Long i) {
      return ((i * 0x9E3779B97F4A7C15L) >>> 47) % 100_000;
    }
  }

  /** W1's count per key, stamping its first record and tracing its processing. */
  public static final class CountPerKey
      extends KeyedProcessFunction<Long, Long, Tuple2<Long, Long>> {
    private static final long serialVersionUID = 1L;

    private final String markerDir;
    private final String traceDir;
    private transient ValueState<Long> count;
    private transient boolean stamped;
    private transient ProcessingTrace trace;

    CountPerKey(String markerDir, String traceDir) {
      this.markerDir = markerDir;
      this.traceDir = traceDir;
    }

    @Override
    public void open(OpenContext openContext) throws Exception {
      count = getRuntimeContext().getState(new ValueStateDescriptor<>("count", Types.LONG));
    }

    @Override
    public void processElement(Long key, Context ctx, Collector<Tuple2<Long, Long>> out)
        throws Exception {
      if (!stamped) {
        stamped = true;
        FirstRecordMarker.stamp(markerDir);
        trace = ProcessingTrace.open(traceDir);
      }
      if (trace != null) {
        trace.record();
      }
      Long current = count.value();
      long next = current == null ? 1L : current + 1L;
      count.update(next);
      out.collect(Tuple2.of(key, next));
    }

    @Override
    public void close() throws Exception {
      if (trace != null) {
        trace.close();
      }
    }
  }
}
