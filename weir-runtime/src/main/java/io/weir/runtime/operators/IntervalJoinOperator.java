package io.weir.runtime.operators;

import io.weir.api.OutputTag;
import io.weir.api.functions.Collector;
import io.weir.api.functions.KeySelector;
import io.weir.api.functions.OpenContext;
import io.weir.api.functions.ProcessJoinFunction;
import io.weir.api.graph.IntervalJoinDefinition;
import io.weir.api.state.MapState;
import io.weir.api.state.MapStateDescriptor;
import io.weir.api.typeutils.TypeInformation;
import io.weir.api.typeutils.Types;
import io.weir.runtime.network.RecordWriter;
import io.weir.runtime.state.KeyedStateBackend;
import io.weir.runtime.time.InternalTimerService;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * {@code intervalJoin}: Flink's {@code IntervalJoinOperator}. Each side's elements wait in keyed
 * state (timestamp to the elements at that timestamp, {@code _join_left} and {@code _join_right})
 * until the watermark has passed the last time the other side could still match them; an element
 * joins every buffered element of the other side within the bounds on arrival. Results carry the
 * larger of the two timestamps. Elements behind the watermark are dropped, as in Flink. Task thread
 * only.
 */
@SuppressWarnings({"unchecked", "rawtypes"})
public final class IntervalJoinOperator<K, T1, T2, OUT> extends StreamOperator<OUT>
    implements TwoInputOperator<T1, T2>, InternalTimerService.Triggerable<K> {

  private final long lowerBound;
  private final long upperBound;
  private final ProcessJoinFunction<T1, T2, OUT> function;
  private final KeySelector<T1, K> leftKey;
  private final KeySelector<T2, K> rightKey;
  private final TypeInformation<T1> leftType;
  private final TypeInformation<T2> rightType;
  private KeyedStateBackend<K> backend;
  private InternalTimerService<K> timers;
  private MapState<Long, List<T1>> leftBuffer;
  private MapState<Long, List<T2>> rightBuffer;
  private final JoinCollector collector = new JoinCollector();
  private JoinContext joinContext;

  public IntervalJoinOperator(
      IntervalJoinDefinition definition,
      KeySelector<T1, K> leftKey,
      KeySelector<T2, K> rightKey,
      TypeInformation<T1> leftType,
      TypeInformation<T2> rightType) {
    // Exclusive bounds are inclusive bounds one millisecond further in.
    this.lowerBound = definition.lowerBound() + (definition.lowerBoundExclusive() ? 1 : 0);
    this.upperBound = definition.upperBound() - (definition.upperBoundExclusive() ? 1 : 0);
    if (lowerBound > upperBound) {
      throw new IllegalArgumentException(
          "The interval join's bounds leave no time to join: lower "
              + lowerBound
              + " ms, upper "
              + upperBound
              + " ms after applying exclusive bounds");
    }
    this.function = (ProcessJoinFunction<T1, T2, OUT>) definition.function();
    this.leftKey = leftKey;
    this.rightKey = rightKey;
    this.leftType = leftType;
    this.rightType = rightType;
  }

  @Override
  public void open() throws Exception {
    backend = (KeyedStateBackend<K>) context.keyedStateBackend();
    leftBuffer =
        backend.getMapState(
            new MapStateDescriptor<>(
                "_join_left",
                Types.LONG.createSerializer(),
                Types.LIST(leftType).createSerializer()));
    rightBuffer =
        backend.getMapState(
            new MapStateDescriptor<>(
                "_join_right",
                Types.LONG.createSerializer(),
                Types.LIST(rightType).createSerializer()));
    timers = new InternalTimerService<>(backend, context.timeService(), this);
    joinContext = new JoinContext(function);
    function.setRuntimeContext(new StreamingRuntimeContext(context));
    function.open(new OpenContext() {});
  }

  @Override
  public void processElement1(T1 value, long timestamp) throws Exception {
    backend.setCurrentKey(leftKey.getKey(value));
    if (!accepted(timestamp)) {
      return;
    }
    add(leftBuffer, timestamp, value);
    for (Map.Entry<Long, List<T2>> e : rightBuffer.entries()) {
      long rightTs = e.getKey();
      if (rightTs >= timestamp + lowerBound && rightTs <= timestamp + upperBound) {
        for (T2 right : e.getValue()) {
          emit(value, timestamp, right, rightTs);
        }
      }
    }
    // A left element can meet right elements up to timestamp + upperBound.
    timers.registerEventTimeTimer(upperBound > 0 ? timestamp + upperBound : timestamp);
  }

  @Override
  public void processElement2(T2 value, long timestamp) throws Exception {
    backend.setCurrentKey(rightKey.getKey(value));
    if (!accepted(timestamp)) {
      return;
    }
    add(rightBuffer, timestamp, value);
    for (Map.Entry<Long, List<T1>> e : leftBuffer.entries()) {
      long leftTs = e.getKey();
      if (timestamp >= leftTs + lowerBound && timestamp <= leftTs + upperBound) {
        for (T1 left : e.getValue()) {
          emit(left, leftTs, value, timestamp);
        }
      }
    }
    // A right element can meet left elements up to timestamp - lowerBound.
    timers.registerEventTimeTimer(lowerBound <= 0 ? timestamp - lowerBound : timestamp);
  }

  private boolean accepted(long timestamp) {
    if (timestamp == RecordWriter.NO_TIMESTAMP) {
      throw new IllegalStateException(
          "Interval join '"
              + getName()
              + "' got an element without a timestamp. Give both inputs event time: a"
              + " WatermarkStrategy on the source or assignTimestampsAndWatermarks(...).");
    }
    long watermark = timers.currentWatermark();
    return watermark == Long.MIN_VALUE || timestamp >= watermark;
  }

  private static <T> void add(MapState<Long, List<T>> buffer, long timestamp, T value)
      throws Exception {
    List<T> existing = buffer.get(timestamp);
    List<T> updated = existing == null ? new ArrayList<>(1) : new ArrayList<>(existing);
    updated.add(value);
    buffer.put(timestamp, updated);
  }

  private void emit(T1 left, long leftTs, T2 right, long rightTs) throws Exception {
    joinContext.leftTs = leftTs;
    joinContext.rightTs = rightTs;
    collector.timestamp = Math.max(leftTs, rightTs);
    function.processElement(left, right, joinContext, collector);
  }

  /** The cleanup of both sides at {@code time}: the entries whose last chance to match passed. */
  @Override
  public void onEventTime(K key, long time) throws Exception {
    leftBuffer.remove(upperBound > 0 ? time - upperBound : time);
    rightBuffer.remove(lowerBound <= 0 ? time + lowerBound : time);
  }

  @Override
  public void onProcessingTime(K key, long time) {}

  @Override
  public void processWatermark(long watermark) throws Exception {
    timers.advanceWatermark(watermark);
    output.emitWatermark(watermark);
  }

  @Override
  public void close() throws Exception {
    if (timers != null) {
      timers.close();
    }
    function.close();
  }

  private final class JoinCollector implements Collector<OUT> {
    long timestamp;

    @Override
    public void collect(OUT record) {
      output.collect(record, timestamp);
    }
  }

  private final class JoinContext extends ProcessJoinFunction<T1, T2, OUT>.Context {
    long leftTs;
    long rightTs;

    JoinContext(ProcessJoinFunction<T1, T2, OUT> function) {
      function.super();
    }

    @Override
    public long getLeftTimestamp() {
      return leftTs;
    }

    @Override
    public long getRightTimestamp() {
      return rightTs;
    }

    @Override
    public long getTimestamp() {
      return collector.timestamp;
    }

    @Override
    public <X> void output(OutputTag<X> outputTag, X value) {
      output.collect(outputTag, value, collector.timestamp);
    }
  }
}
