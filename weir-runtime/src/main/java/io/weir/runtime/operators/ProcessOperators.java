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
import io.weir.runtime.state.KeyedStateBackend;
import io.weir.runtime.time.InternalTimerService;

/** The process-function operators, keyed and not, one and two inputs, and keyed reduce. */
public final class ProcessOperators {

  /** The name of a keyed reduce's state; checkpoints refer to it, so it never changes. */
  public static final String REDUCE_STATE = "_reduce_state";

  private ProcessOperators() {}

  static Long toTimestamp(long timestamp) {
    return timestamp == RecordWriter.NO_TIMESTAMP ? null : timestamp;
  }

  /** Timers need keys; a non-keyed function gets this. */
  static final class NoTimers implements TimerService {
    private final String operatorName;
    private final java.util.function.LongSupplier watermark;

    NoTimers(String operatorName, java.util.function.LongSupplier watermark) {
      this.operatorName = operatorName;
      this.watermark = watermark;
    }

    @Override
    public long currentProcessingTime() {
      return System.currentTimeMillis();
    }

    @Override
    public long currentWatermark() {
      return watermark.getAsLong();
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
    private long watermark = Long.MIN_VALUE;

    public Process(ProcessFunction<IN, OUT> function) {
      super(function);
    }

    @Override
    public void processWatermark(long watermark) throws Exception {
      this.watermark = watermark;
      super.processWatermark(watermark);
    }

    @Override
    public void open() throws Exception {
      collector = new TimestampedCollector<>(output);
      TimerService timers = new NoTimers(getName(), () -> watermark);
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

  /**
   * The plumbing shared by the keyed process operators: the keyed backend, the timer service,
   * timestamped output, and firing timers at the end of a bounded input.
   */
  abstract static class KeyedTimers<K, OUT, F> extends UdfOperator<OUT, F>
      implements InternalTimerService.Triggerable<K> {
    KeyedStateBackend<K> backend;
    InternalTimerService<K> timers;
    TimestampedCollector<OUT> collector;
    private long timerTimestamp;

    KeyedTimers(F function) {
      super(function);
    }

    @Override
    @SuppressWarnings("unchecked")
    public void open() throws Exception {
      backend = (KeyedStateBackend<K>) context.keyedStateBackend();
      timers = new InternalTimerService<>(backend, context.timeService(), this);
      collector = new TimestampedCollector<>(output);
      createContexts();
      super.open();
    }

    /** Creates the function's element and timer contexts, once timers and backend exist. */
    abstract void createContexts();

    /** Calls the function's {@code onTimer}; the key is set and the collector stamped. */
    abstract void onTimer(long timestamp, TimeDomain domain) throws Exception;

    @Override
    public final void onEventTime(K key, long timestamp) throws Exception {
      collector.timestamp = timestamp;
      timerTimestamp = timestamp;
      onTimer(timestamp, TimeDomain.EVENT_TIME);
    }

    @Override
    public final void onProcessingTime(K key, long timestamp) throws Exception {
      // As in Flink: output of a processing-time timer carries no event timestamp.
      collector.timestamp = RecordWriter.NO_TIMESTAMP;
      timerTimestamp = timestamp;
      onTimer(timestamp, TimeDomain.PROCESSING_TIME);
    }

    /** The timestamp of the current element. */
    Long currentTimestamp() {
      return toTimestamp(collector.timestamp);
    }

    /** The time of the firing timer. */
    Long firingTimestamp() {
      return timerTimestamp;
    }

    @Override
    public void processWatermark(long watermark) throws Exception {
      timers.advanceWatermark(watermark);
      output.emitWatermark(watermark);
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
  }

  /** {@code keyBy(...).process(KeyedProcessFunction)}. */
  public static final class KeyedProcess<K, IN, OUT>
      extends KeyedTimers<K, OUT, KeyedProcessFunction<K, IN, OUT>>
      implements OneInputOperator<IN> {
    private KeyedProcessFunction<K, IN, OUT>.Context ctx;
    private OnTimer onTimerCtx;

    /** The chain sets the current key before each element (see {@code KeyedInput}). */
    public KeyedProcess(KeyedProcessFunction<K, IN, OUT> function) {
      super(function);
    }

    @Override
    void createContexts() {
      ctx =
          userFunction.new Context() {
            @Override
            public Long timestamp() {
              return currentTimestamp();
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
    }

    @Override
    public void processElement(IN value, long timestamp) throws Exception {
      collector.timestamp = timestamp;
      userFunction.processElement(value, ctx, collector);
    }

    @Override
    void onTimer(long timestamp, TimeDomain domain) throws Exception {
      onTimerCtx.domain = domain;
      userFunction.onTimer(timestamp, onTimerCtx, collector);
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
        return firingTimestamp();
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
  public static final class Reduce<T> extends UdfOperator<T, ReduceFunction<T>>
      implements OneInputOperator<T> {
    private final TypeSerializer<T> serializer;
    private ValueState<T> state;

    /** The chain sets the current key before each element (see {@code KeyedInput}). */
    public Reduce(ReduceFunction<T> function, TypeSerializer<T> serializer) {
      super(function);
      this.serializer = serializer;
    }

    @Override
    public void open() throws Exception {
      state =
          context
              .keyedStateBackend()
              .getState(new ValueStateDescriptor<>(REDUCE_STATE, serializer));
      super.open();
    }

    @Override
    public void processElement(T value, long timestamp) throws Exception {
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
    private long watermark = Long.MIN_VALUE;

    public CoProcess(CoProcessFunction<I1, I2, OUT> function) {
      super(function);
    }

    @Override
    public void processWatermark(long watermark) throws Exception {
      this.watermark = watermark;
      super.processWatermark(watermark);
    }

    @Override
    public void open() throws Exception {
      collector = new TimestampedCollector<>(output);
      TimerService timers = new NoTimers(getName(), () -> watermark);
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
      extends KeyedTimers<K, OUT, KeyedCoProcessFunction<K, I1, I2, OUT>>
      implements TwoInputOperator<I1, I2> {
    private final KeySelector<I1, K> keySelector1;
    private final KeySelector<I2, K> keySelector2;
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
    void createContexts() {
      ctx =
          userFunction.new Context() {
            @Override
            public Long timestamp() {
              return currentTimestamp();
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
    void onTimer(long timestamp, TimeDomain domain) throws Exception {
      onTimerCtx.domain = domain;
      userFunction.onTimer(timestamp, onTimerCtx, collector);
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
        return firingTimestamp();
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
