package io.weir.runtime.operators;

import io.weir.api.functions.CoProcessFunction;
import io.weir.api.functions.KeySelector;
import io.weir.api.functions.KeyedCoProcessFunction;
import io.weir.api.functions.KeyedProcessFunction;
import io.weir.api.functions.ProcessFunction;
import io.weir.api.functions.ReduceFunction;
import io.weir.api.functions.TimeDomain;
import io.weir.api.functions.TimerService;
import io.weir.api.state.ValueState;
import io.weir.api.state.ValueStateDescriptor;
import io.weir.api.typeutils.TypeSerializer;
import io.weir.runtime.network.RecordWriter;
import io.weir.runtime.state.HeapKeyedStateBackend;
import io.weir.runtime.time.InternalTimerService;

/** The process-function operators, keyed and not, one and two inputs, and keyed reduce. */
public final class ProcessOperators {

  private ProcessOperators() {}

  static Long toTimestamp(long timestamp) {
    return timestamp == RecordWriter.NO_TIMESTAMP ? null : timestamp;
  }

  /** Timers need keys; a non-keyed function gets this. */
  static final class NoTimers implements TimerService {
    private final String operatorName;

    NoTimers(String operatorName) {
      this.operatorName = operatorName;
    }

    @Override
    public long currentProcessingTime() {
      return System.currentTimeMillis();
    }

    @Override
    public long currentWatermark() {
      return Long.MIN_VALUE;
    }

    private UnsupportedOperationException unsupported() {
      return new UnsupportedOperationException(
          "Timers are only available on keyed streams, but operator '"
              + operatorName
              + "' is not keyed. Call keyBy(...) before process(...).");
    }

    @Override
    public void registerProcessingTimeTimer(long time) {
      throw unsupported();
    }

    @Override
    public void registerEventTimeTimer(long time) {
      throw unsupported();
    }

    @Override
    public void deleteProcessingTimeTimer(long time) {
      throw unsupported();
    }

    @Override
    public void deleteEventTimeTimer(long time) {
      throw unsupported();
    }
  }

  /** {@code process(ProcessFunction)}. */
  public static final class Process<IN, OUT> extends UdfOperator<OUT, ProcessFunction<IN, OUT>>
      implements OneInputOperator<IN> {
    private TimestampedCollector<OUT> collector;
    private ProcessFunction.Context ctx;

    public Process(ProcessFunction<IN, OUT> function) {
      super(function);
    }

    @Override
    public void open() throws Exception {
      collector = new TimestampedCollector<>(output);
      TimerService timers = new NoTimers(getName());
      ctx =
          new ProcessFunction.Context() {
            @Override
            public Long timestamp() {
              return toTimestamp(collector.timestamp);
            }

            @Override
            public TimerService timerService() {
              return timers;
            }
          };
      super.open();
    }

    @Override
    public void processElement(IN value, long timestamp) throws Exception {
      collector.timestamp = timestamp;
      userFunction.processElement(value, ctx, collector);
    }
  }

  /** {@code keyBy(...).process(KeyedProcessFunction)}. */
  public static final class KeyedProcess<K, IN, OUT>
      extends UdfOperator<OUT, KeyedProcessFunction<K, IN, OUT>>
      implements OneInputOperator<IN>, InternalTimerService.Triggerable<K> {
    private final KeySelector<IN, K> keySelector;
    private HeapKeyedStateBackend<K> backend;
    private InternalTimerService<K> timers;
    private TimestampedCollector<OUT> collector;
    private KeyedProcessFunction<K, IN, OUT>.Context ctx;
    private OnTimer onTimerCtx;

    public KeyedProcess(KeyedProcessFunction<K, IN, OUT> function, KeySelector<IN, K> keySelector) {
      super(function);
      this.keySelector = keySelector;
    }

    @Override
    @SuppressWarnings("unchecked")
    public void open() throws Exception {
      backend = (HeapKeyedStateBackend<K>) context.keyedStateBackend();
      timers = new InternalTimerService<>(backend, context.timeService(), this);
      collector = new TimestampedCollector<>(output);
      ctx =
          userFunction.new Context() {
            @Override
            public Long timestamp() {
              return toTimestamp(collector.timestamp);
            }

            @Override
            public TimerService timerService() {
              return timers;
            }

            @Override
            public K getCurrentKey() {
              return backend.getCurrentKey();
            }
          };
      onTimerCtx = new OnTimer();
      super.open();
    }

    @Override
    public void processElement(IN value, long timestamp) throws Exception {
      backend.setCurrentKey(keySelector.getKey(value));
      collector.timestamp = timestamp;
      userFunction.processElement(value, ctx, collector);
    }

    @Override
    public void onEventTime(K key, long timestamp) throws Exception {
      fire(timestamp, TimeDomain.EVENT_TIME);
    }

    @Override
    public void onProcessingTime(K key, long timestamp) throws Exception {
      fire(timestamp, TimeDomain.PROCESSING_TIME);
    }

    private void fire(long timestamp, TimeDomain domain) throws Exception {
      collector.timestamp = timestamp;
      onTimerCtx.domain = domain;
      userFunction.onTimer(timestamp, onTimerCtx, collector);
    }

    @Override
    public void finish() throws Exception {
      // A bounded input ends with the final watermark: every event-time timer fires, as in Flink.
      timers.advanceWatermark(Long.MAX_VALUE);
    }

    @Override
    public void close() throws Exception {
      if (timers != null) {
        timers.close();
      }
      super.close();
    }

    private final class OnTimer extends KeyedProcessFunction<K, IN, OUT>.OnTimerContext {
      TimeDomain domain;

      OnTimer() {
        userFunction.super();
      }

      @Override
      public TimeDomain timeDomain() {
        return domain;
      }

      @Override
      public Long timestamp() {
        return toTimestamp(collector.timestamp);
      }

      @Override
      public TimerService timerService() {
        return timers;
      }

      @Override
      public K getCurrentKey() {
        return backend.getCurrentKey();
      }
    }
  }

  /** {@code keyBy(...).reduce(...)} and {@code sum}: emits the running result per key. */
  public static final class Reduce<K, T> extends UdfOperator<T, ReduceFunction<T>>
      implements OneInputOperator<T> {
    private final KeySelector<T, K> keySelector;
    private final TypeSerializer<T> serializer;
    private HeapKeyedStateBackend<K> backend;
    private ValueState<T> state;

    public Reduce(ReduceFunction<T> function, KeySelector<T, K> keySelector, TypeSerializer<T> s) {
      super(function);
      this.keySelector = keySelector;
      this.serializer = s;
    }

    @Override
    @SuppressWarnings("unchecked")
    public void open() throws Exception {
      backend = (HeapKeyedStateBackend<K>) context.keyedStateBackend();
      state = backend.getState(new ValueStateDescriptor<>("_reduce_state", serializer));
      super.open();
    }

    @Override
    public void processElement(T value, long timestamp) throws Exception {
      backend.setCurrentKey(keySelector.getKey(value));
      T current = state.value();
      T result = current == null ? value : userFunction.reduce(current, value);
      state.update(result);
      output.collect(result, timestamp);
    }
  }

  /** {@code connect(...).process(CoProcessFunction)}. */
  public static final class CoProcess<I1, I2, OUT>
      extends UdfOperator<OUT, CoProcessFunction<I1, I2, OUT>> implements TwoInputOperator<I1, I2> {
    private TimestampedCollector<OUT> collector;
    private CoProcessFunction<I1, I2, OUT>.Context ctx;

    public CoProcess(CoProcessFunction<I1, I2, OUT> function) {
      super(function);
    }

    @Override
    public void open() throws Exception {
      collector = new TimestampedCollector<>(output);
      TimerService timers = new NoTimers(getName());
      ctx =
          userFunction.new Context() {
            @Override
            public Long timestamp() {
              return toTimestamp(collector.timestamp);
            }

            @Override
            public TimerService timerService() {
              return timers;
            }
          };
      super.open();
    }

    @Override
    public void processElement1(I1 value, long timestamp) throws Exception {
      collector.timestamp = timestamp;
      userFunction.processElement1(value, ctx, collector);
    }

    @Override
    public void processElement2(I2 value, long timestamp) throws Exception {
      collector.timestamp = timestamp;
      userFunction.processElement2(value, ctx, collector);
    }
  }

  /** {@code connect(...).process(KeyedCoProcessFunction)} on two keyed streams. */
  public static final class KeyedCoProcess<K, I1, I2, OUT>
      extends UdfOperator<OUT, KeyedCoProcessFunction<K, I1, I2, OUT>>
      implements TwoInputOperator<I1, I2>, InternalTimerService.Triggerable<K> {
    private final KeySelector<I1, K> keySelector1;
    private final KeySelector<I2, K> keySelector2;
    private HeapKeyedStateBackend<K> backend;
    private InternalTimerService<K> timers;
    private TimestampedCollector<OUT> collector;
    private KeyedCoProcessFunction<K, I1, I2, OUT>.Context ctx;
    private OnTimer onTimerCtx;

    public KeyedCoProcess(
        KeyedCoProcessFunction<K, I1, I2, OUT> function,
        KeySelector<I1, K> keySelector1,
        KeySelector<I2, K> keySelector2) {
      super(function);
      this.keySelector1 = keySelector1;
      this.keySelector2 = keySelector2;
    }

    @Override
    @SuppressWarnings("unchecked")
    public void open() throws Exception {
      backend = (HeapKeyedStateBackend<K>) context.keyedStateBackend();
      timers = new InternalTimerService<>(backend, context.timeService(), this);
      collector = new TimestampedCollector<>(output);
      ctx =
          userFunction.new Context() {
            @Override
            public Long timestamp() {
              return toTimestamp(collector.timestamp);
            }

            @Override
            public TimerService timerService() {
              return timers;
            }

            @Override
            public K getCurrentKey() {
              return backend.getCurrentKey();
            }
          };
      onTimerCtx = new OnTimer();
      super.open();
    }

    @Override
    public void processElement1(I1 value, long timestamp) throws Exception {
      backend.setCurrentKey(keySelector1.getKey(value));
      collector.timestamp = timestamp;
      userFunction.processElement1(value, ctx, collector);
    }

    @Override
    public void processElement2(I2 value, long timestamp) throws Exception {
      backend.setCurrentKey(keySelector2.getKey(value));
      collector.timestamp = timestamp;
      userFunction.processElement2(value, ctx, collector);
    }

    @Override
    public void onEventTime(K key, long timestamp) throws Exception {
      fire(timestamp, TimeDomain.EVENT_TIME);
    }

    @Override
    public void onProcessingTime(K key, long timestamp) throws Exception {
      fire(timestamp, TimeDomain.PROCESSING_TIME);
    }

    private void fire(long timestamp, TimeDomain domain) throws Exception {
      collector.timestamp = timestamp;
      onTimerCtx.domain = domain;
      userFunction.onTimer(timestamp, onTimerCtx, collector);
    }

    @Override
    public void finish() throws Exception {
      timers.advanceWatermark(Long.MAX_VALUE);
    }

    @Override
    public void close() throws Exception {
      if (timers != null) {
        timers.close();
      }
      super.close();
    }

    private final class OnTimer extends KeyedCoProcessFunction<K, I1, I2, OUT>.OnTimerContext {
      TimeDomain domain;

      OnTimer() {
        userFunction.super();
      }

      @Override
      public TimeDomain timeDomain() {
        return domain;
      }

      @Override
      public Long timestamp() {
        return toTimestamp(collector.timestamp);
      }

      @Override
      public TimerService timerService() {
        return timers;
      }

      @Override
      public K getCurrentKey() {
        return backend.getCurrentKey();
      }
    }
  }
}
