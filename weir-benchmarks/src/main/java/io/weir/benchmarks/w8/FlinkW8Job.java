package io.weir.benchmarks.w8;

import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.util.Collector;

/**
 * W8's job on Flink: W1's keyed count ({@code io.weir.benchmarks.w1.FlinkKeyedCount}), parallelism
 * 2, built in the benchmark JVM on a local or a remote environment. Its functions are classes of
 * this package (no lambdas: a lambda would need its capturing class on the TaskManagers), shipped
 * to a standalone cluster in the job jar.
 */
public final class FlinkW8Job {
  private FlinkW8Job() {}

  /**
   * Adds the job to {@code env}: the keyed function stamps its first records into {@code markerDir}
   * ({@link FirstRecordMarker}) and traces when it processed into {@code traceDir} ({@link
   * ProcessingTrace}), either empty for none.
   */
  static void build(
      StreamExecutionEnvironment env, long records, String markerDir, String traceDir) {
    env.setParallelism(2);
    env.fromSequence(1, records)
        .map(new ToKey())
        .keyBy(new Identity())
        .process(new CountPerKey(markerDir, traceDir))
        .sinkTo(new DiscardingSink<>());
  }

  /** W1's key of record {@code i}. */
  public static final class ToKey implements MapFunction<Long, Long> {
    private static final long serialVersionUID = 1L;

    @Override
    public Long map(Long i) {
      return ((i * 0x9E3779B97F4A7C15L) >>> 47) % 100_000;
    }
  }

  /** The key is the value. */
  public static final class Identity implements KeySelector<Long, Long> {
    private static final long serialVersionUID = 1L;

    @Override
    public Long getKey(Long value) {
      return value;
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
    public void open(OpenContext openContext) {
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
