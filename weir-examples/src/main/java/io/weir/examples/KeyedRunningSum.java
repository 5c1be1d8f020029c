package io.weir.examples;

import io.weir.api.DataStream;
import io.weir.api.StreamEnvironment;
import io.weir.api.functions.Collector;
import io.weir.api.functions.KeyedProcessFunction;
import io.weir.api.functions.OpenContext;
import io.weir.api.state.ValueState;
import io.weir.api.state.ValueStateDescriptor;
import io.weir.api.tuple.Tuple2;
import io.weir.api.typeutils.Types;

/**
 * A keyed running sum over a number sequence: each number belongs to key {@code n % keys}, and the
 * function keeps the sum per key in a {@link ValueState}.
 */
public final class KeyedRunningSum {

  private KeyedRunningSum() {}

  /** Keeps the running sum of its key and emits (key, sum) for every input. */
  public static final class RunningSum
      extends KeyedProcessFunction<Long, Long, Tuple2<Long, Long>> {
    private static final long serialVersionUID = 1L;
    private transient ValueState<Long> sum;

    @Override
    public void open(OpenContext openContext) {
      sum = getRuntimeContext().getState(new ValueStateDescriptor<>("sum", Types.LONG));
    }

    @Override
    public void processElement(Long value, Context ctx, Collector<Tuple2<Long, Long>> out)
        throws Exception {
      Long current = sum.value();
      long next = (current == null ? 0 : current) + value;
      sum.update(next);
      out.collect(Tuple2.of(ctx.getCurrentKey(), next));
    }
  }

  /** The pipeline: numbers in, (key, running sum) out. */
  public static DataStream<Tuple2<Long, Long>> sums(DataStream<Long> numbers, long keys) {
    return numbers
        .keyBy(n -> n % keys)
        .process(new RunningSum())
        .name("Running Sum")
        .uid("running-sum");
  }

  public static void main(String[] args) throws Exception {
    StreamEnvironment env = StreamEnvironment.create();
    env.setParallelism(2);
    sums(env.fromSequence(1, 20), 3).print();
    env.execute("keyed-running-sum");
  }
}
