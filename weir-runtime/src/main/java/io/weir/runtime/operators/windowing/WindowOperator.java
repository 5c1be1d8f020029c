package io.weir.runtime.operators.windowing;

import io.weir.api.OutputTag;
import io.weir.api.functions.AggregateFunction;
import io.weir.api.functions.Collector;
import io.weir.api.functions.OpenContext;
import io.weir.api.functions.RichFunction;
import io.weir.api.functions.windowing.ProcessWindowFunction;
import io.weir.api.graph.WindowDefinition;
import io.weir.api.state.KeyedStateStore;
import io.weir.api.state.MapState;
import io.weir.api.state.MapStateDescriptor;
import io.weir.api.state.ReducingState;
import io.weir.api.state.ReducingStateDescriptor;
import io.weir.api.state.ValueState;
import io.weir.api.state.ValueStateDescriptor;
import io.weir.api.typeutils.TypeInformation;
import io.weir.api.typeutils.TypeSerializer;
import io.weir.api.windowing.assigners.MergingWindowAssigner;
import io.weir.api.windowing.assigners.WindowAssigner;
import io.weir.api.windowing.evictors.Evictor;
import io.weir.api.windowing.evictors.TimestampedValue;
import io.weir.api.windowing.triggers.EventTimeTrigger;
import io.weir.api.windowing.triggers.ProcessingTimeTrigger;
import io.weir.api.windowing.triggers.Trigger;
import io.weir.api.windowing.triggers.TriggerResult;
import io.weir.api.windowing.windows.Window;
import io.weir.runtime.network.RecordWriter;
import io.weir.runtime.operators.OneInputOperator;
import io.weir.runtime.operators.StreamOperator;
import io.weir.runtime.operators.StreamingRuntimeContext;
import io.weir.runtime.state.KeyedStateBackend;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * {@code keyBy(...).window(...)} with its function, and {@code windowAll}: Flink's {@code
 * WindowOperator} (and {@code EvictingWindowOperator}) on Weir's keyed state. Everything a window
 * holds is keyed state of the operator, so it is in every checkpoint and works on RocksDB:
 *
 * <ul>
 *   <li>contents: one accumulator per key and window for {@code reduce}/{@code aggregate} ({@link
 *       WindowContents.Accumulating}), the elements for {@code process} or with an evictor ({@link
 *       WindowContents.Listing});
 *   <li>session windows: the merging window set ({@code _window_merging}, {@link
 *       MergingWindowSet});
 *   <li>trigger state per window ({@code _trigger_<name>}) and window state of the function ({@code
 *       _window_state_<name>});
 *   <li>timers: one per key, window and time ({@link WindowTimers}); checkpoints hold them as the
 *       keyed timer service's (timestamp and key), plus which windows wait for each timestamp
 *       ({@code _window_timers_event}, {@code _window_timers_processing}).
 * </ul>
 *
 * <p>An element whose windows are all past their cleanup time (end + allowed lateness, by the
 * watermark) is late: it goes to the late-data side output if there is one, else it is dropped.
 * Task thread only.
 *
 * @param <K> key
 * @param <IN> element
 * @param <OUT> result
 * @param <W> window
 */
@SuppressWarnings({"unchecked", "rawtypes"})
public final class WindowOperator<K, IN, OUT, W extends Window> extends StreamOperator<OUT>
    implements OneInputOperator<IN> {

  private final WindowDefinition definition;
  private final WindowAssigner<IN, W> assigner;
  private final Trigger<IN, W> trigger;
  private final Evictor<IN, W> evictor;
  private final AggregateFunction<IN, Object, Object> aggregate;
  private final ProcessWindowFunction<Object, OUT, K, W> windowFunction;
  private final DefaultTrigger defaultTrigger;
  private final long allowedLateness;
  private final OutputTag<IN> lateDataTag;
  private final TypeInformation<IN> inputType;
  private final TypeInformation<Object> accumulatorType;

  private KeyedStateBackend<K> backend;
  private WindowTimers<K, W> timers;
  private WindowContents<IN, W> contents;
  private MapState<W, W> mergingState;
  private PerWindowState<W> triggerState;
  private PerWindowState<W> windowState;

  private final Context triggerContext = new Context();
  private final WindowAssigner.WindowAssignerContext assignerContext =
      new WindowAssigner.WindowAssignerContext() {
        @Override
        public long getCurrentProcessingTime() {
          return timers.currentProcessingTime();
        }
      };
  private final EmitCollector collector = new EmitCollector();
  private ProcessWindowFunction<Object, OUT, K, W>.Context functionContext;
  private Evictor.EvictorContext evictorContext;
  private long numLateRecordsDropped;

  /**
   * @param definition the window's user code (this subtask's copy)
   * @param inputType the type of the elements
   * @param accumulatorType the aggregate's accumulator type; null for {@code process}
   */
  public WindowOperator(
      WindowDefinition definition,
      TypeInformation<IN> inputType,
      TypeInformation<?> accumulatorType) {
    this.definition = definition;
    this.assigner = (WindowAssigner<IN, W>) definition.assigner();
    this.trigger = (Trigger<IN, W>) definition.trigger();
    this.evictor = (Evictor<IN, W>) definition.evictor();
    this.aggregate = (AggregateFunction<IN, Object, Object>) definition.aggregate();
    this.windowFunction = (ProcessWindowFunction<Object, OUT, K, W>) definition.windowFunction();
    this.defaultTrigger = DefaultTrigger.of(trigger, assigner);
    this.allowedLateness = definition.allowedLateness();
    this.lateDataTag = (OutputTag<IN>) definition.lateDataTag();
    this.inputType = inputType;
    this.accumulatorType = (TypeInformation<Object>) accumulatorType;
    if (aggregate == null && windowFunction == null) {
      throw new IllegalArgumentException("A window needs an aggregate or a window function");
    }
  }

  /** Elements dropped as late (without a late-data side output). */
  public long getNumLateRecordsDropped() {
    return numLateRecordsDropped;
  }

  @Override
  public void open() throws Exception {
    backend = (KeyedStateBackend<K>) context.keyedStateBackend();
    if (backend == null) {
      throw new IllegalStateException(
          "Window operator '" + getName() + "' needs a keyed stream: call keyBy(...) first");
    }
    TypeInformation<W> windowType = assigner.getWindowType();
    TypeSerializer<W> windowSerializer = windowType.createSerializer();
    boolean listing = evictor != null || aggregate == null;
    if (listing) {
      contents = new WindowContents.Listing<>(backend, windowType, inputType);
    } else {
      if (accumulatorType == null || accumulatorType.isMissing()) {
        throw new IllegalStateException(
            "The accumulator type of the aggregate of window operator '"
                + getName()
                + "' is unknown; implement the AggregateFunction as a class with concrete type"
                + " arguments");
      }
      contents =
          new WindowContents.Accumulating<>(
              backend, windowSerializer, accumulatorType.createSerializer(), aggregate);
    }
    if (assigner instanceof MergingWindowAssigner<?, ?>) {
      mergingState =
          backend.getMapState(
              new MapStateDescriptor<>(
                  "_window_merging", windowSerializer.duplicate(), windowSerializer.duplicate()));
    }
    triggerState = new PerWindowState<>(backend, windowSerializer, "_trigger_", describe());
    windowState = new PerWindowState<>(backend, windowSerializer, "_window_state_", describe());
    timers = WindowTimers.create(backend, context.timeService(), windowType, this::onTimer);
    evictorContext =
        new Evictor.EvictorContext() {
          @Override
          public long getCurrentProcessingTime() {
            return timers.currentProcessingTime();
          }

          @Override
          public long getCurrentWatermark() {
            return timers.currentWatermark();
          }
        };
    if (windowFunction != null) {
      functionContext = new FunctionContext(windowFunction);
    }
    StreamingRuntimeContext runtimeContext = new StreamingRuntimeContext(context);
    OpenContext openContext = new OpenContext() {};
    for (Object f : new Object[] {aggregateFunctionOfUser(), windowFunction}) {
      if (f instanceof RichFunction rich) {
        rich.setRuntimeContext(runtimeContext);
        rich.open(openContext);
      }
    }
  }

  /** The user's reduce or aggregate function (rich functions get their lifecycle). */
  private Object aggregateFunctionOfUser() {
    Object user = aggregate;
    return user instanceof WindowDefinition.ReduceAggregate<?> r ? r.reducer() : user;
  }

  private String describe() {
    return "window operator '" + getName() + "'";
  }

  // ------------------------------------------------------------------ elements

  @Override
  public void processElement(IN value, long timestamp) throws Exception {
    Collection<W> windows = assigner.assignWindows(value, timestamp, assignerContext);
    boolean skipped = true;
    K key = backend.getCurrentKey();
    triggerContext.key = key;
    if (mergingState != null) {
      MergingWindowSet<W> merging =
          new MergingWindowSet<>(mergingState, (MergingWindowAssigner<?, W>) assigner);
      for (W window : windows) {
        W actual = merging.addWindow(window, this::mergeWindows);
        if (isWindowLate(actual)) {
          merging.retireWindow(actual);
          continue;
        }
        skipped = false;
        W stateWindow = merging.getStateWindow(actual);
        if (stateWindow == null) {
          throw new IllegalStateException(
              "Window " + window + " is not in the merging window set of " + describe());
        }
        contents.add(stateWindow, value, timestamp);
        triggerContext.window = actual;
        TriggerResult result = trigger.onElement(value, timestamp, actual, triggerContext);
        onTriggerResult(result, actual, stateWindow, false);
        registerCleanupTimer(actual);
      }
      merging.persist();
    } else {
      for (W window : windows) {
        if (isWindowLate(window)) {
          continue;
        }
        skipped = false;
        if (contents.add(window, value, timestamp) && timersAlreadySet(window)) {
          continue;
        }
        triggerContext.window = window;
        TriggerResult result = trigger.onElement(value, timestamp, window, triggerContext);
        onTriggerResult(result, window, window, false);
        registerCleanupTimer(window);
      }
    }
    if (skipped && isElementLate(timestamp)) {
      if (lateDataTag != null) {
        output.collect(lateDataTag, value, timestamp);
      } else {
        numLateRecordsDropped++;
      }
    }
  }

  /**
   * Whether the default trigger would do nothing for another element of a window that holds
   * something: it set the window's timer with the window's first element, and its cleanup timer was
   * set with it; both stay until the window is cleared (the event-time trigger's fires at the end,
   * after which it fires on each late element instead). Skipping the call saves two timer lookups
   * per element and window, most of what a sliding window's element cost.
   */
  private boolean timersAlreadySet(W window) {
    return defaultTrigger == DefaultTrigger.PROCESSING_TIME
        || (defaultTrigger == DefaultTrigger.EVENT_TIME
            && window.maxTimestamp() > timers.currentWatermark());
  }

  /** Windows merged (sessions): triggers merge, merged windows' timers and contents move. */
  private void mergeWindows(
      W mergeResult, Collection<W> mergedWindows, W stateWindowResult, Collection<W> mergedStates)
      throws Exception {
    if (assigner.isEventTime() && cleanupTime(mergeResult) <= timers.currentWatermark()) {
      throw new UnsupportedOperationException(
          "In "
              + describe()
              + ", merging made the end of event-time window "
              + mergeResult
              + " earlier than the current watermark "
              + timers.currentWatermark()
              + "; a merging window assigner must not shrink windows");
    } else if (!assigner.isEventTime()
        && mergeResult.maxTimestamp() <= timers.currentProcessingTime()) {
      throw new UnsupportedOperationException(
          "In "
              + describe()
              + ", merging made the end of processing-time window "
              + mergeResult
              + " earlier than the current processing time "
              + timers.currentProcessingTime());
    }
    triggerContext.window = mergeResult;
    triggerContext.mergedWindows = mergedWindows;
    trigger.onMerge(mergeResult, triggerContext);
    for (W merged : mergedWindows) {
      triggerContext.window = merged;
      trigger.clear(merged, triggerContext);
      deleteCleanupTimer(merged);
    }
    triggerContext.mergedWindows = null;
    contents.merge(stateWindowResult, mergedStates);
  }

  /**
   * @param cleanup whether the window's state goes right after: a firing then takes the contents
   *     out as it reads them
   */
  private void onTriggerResult(TriggerResult result, W window, W stateWindow, boolean cleanup)
      throws Exception {
    if (result.isFire()) {
      fire(window, stateWindow, cleanup);
    }
    if (result.isPurge()) {
      contents.clear(stateWindow);
    }
  }

  // ------------------------------------------------------------------ timers

  private void onTimer(K key, long time, W window, boolean eventTime) throws Exception {
    triggerContext.key = key;
    triggerContext.window = window;
    MergingWindowSet<W> merging = null;
    W stateWindow = window;
    if (mergingState != null) {
      merging = new MergingWindowSet<>(mergingState, (MergingWindowAssigner<?, W>) assigner);
      stateWindow = merging.getStateWindow(window);
      if (stateWindow == null) {
        return; // the window merged into another since the timer was set
      }
    }
    TriggerResult result =
        eventTime
            ? trigger.onEventTime(time, window, triggerContext)
            : trigger.onProcessingTime(time, window, triggerContext);
    boolean cleanup = assigner.isEventTime() == eventTime && time == cleanupTime(window);
    onTriggerResult(result, window, stateWindow, cleanup);
    if (cleanup) {
      clearAllState(window, stateWindow, merging, !triggerTimerFired(window, time, eventTime));
    }
    if (merging != null) {
      merging.persist();
    }
  }

  /**
   * Whether, at the window's timer for {@code time}, the default trigger's one timer (at the
   * window's end, in the trigger's time domain) is gone: timers fire in time order, so it fired
   * before or is the one firing, and deleting it would only look it up.
   */
  private boolean triggerTimerFired(W window, long time, boolean eventTime) {
    return defaultTrigger != DefaultTrigger.OTHER
        && eventTime == (defaultTrigger == DefaultTrigger.EVENT_TIME)
        && time >= window.maxTimestamp();
  }

  private void clearAllState(
      W window, W stateWindow, MergingWindowSet<W> merging, boolean clearTrigger) throws Exception {
    contents.clear(stateWindow);
    triggerContext.window = window;
    if (clearTrigger) {
      trigger.clear(window, triggerContext);
    }
    if (windowFunction != null) {
      collector.window = window;
      windowFunction.clear(functionContext);
    }
    if (merging != null) {
      merging.retireWindow(window);
    }
  }

  @Override
  public void processWatermark(long watermark) throws Exception {
    timers.advanceWatermark(watermark);
    output.emitWatermark(watermark);
  }

  @Override
  public void finish() throws Exception {
    // The end of a bounded input is the final watermark: every event-time window fires.
    timers.advanceWatermark(Long.MAX_VALUE);
  }

  /** On the heap the window timers are written into the keyed state only now. */
  @Override
  protected void snapshotUserState(long checkpointId, long timestamp) throws Exception {
    timers.beforeSnapshot();
  }

  @Override
  public void close() throws Exception {
    if (timers != null) {
      timers.close();
    }
    for (Object f : new Object[] {aggregateFunctionOfUser(), windowFunction}) {
      if (f instanceof RichFunction rich) {
        rich.close();
      }
    }
  }

  // ------------------------------------------------------------------ lateness and cleanup

  /** When the window's state goes: its end plus the allowed lateness (event time), or its end. */
  private long cleanupTime(W window) {
    if (assigner.isEventTime()) {
      long time = window.maxTimestamp() + allowedLateness;
      return time >= window.maxTimestamp() ? time : Long.MAX_VALUE;
    }
    return window.maxTimestamp();
  }

  private boolean isWindowLate(W window) {
    return assigner.isEventTime() && cleanupTime(window) <= timers.currentWatermark();
  }

  private boolean isElementLate(long timestamp) {
    return assigner.isEventTime()
        && timestamp != RecordWriter.NO_TIMESTAMP
        && timestamp + allowedLateness <= timers.currentWatermark();
  }

  private void registerCleanupTimer(W window) throws Exception {
    long time = cleanupTime(window);
    if (time == Long.MAX_VALUE) {
      return; // a global window: kept until a trigger purges it
    }
    timers.register(time, window, assigner.isEventTime());
  }

  private void deleteCleanupTimer(W window) throws Exception {
    long time = cleanupTime(window);
    if (time != Long.MAX_VALUE) {
      timers.delete(time, window, assigner.isEventTime());
    }
  }

  // ------------------------------------------------------------------ firing

  /**
   * @param last whether the contents go right after: then they are taken out as they are read
   */
  private void fire(W window, W stateWindow, boolean last) throws Exception {
    collector.timestamp = window.maxTimestamp();
    collector.window = window;
    if (contents instanceof WindowContents.Accumulating<IN, ?, W> accumulating) {
      Object acc = last ? accumulating.take(stateWindow) : accumulating.get(stateWindow);
      if (acc == null) {
        return;
      }
      emit(aggregate.getResult(acc));
      return;
    }
    WindowContents.Listing<IN, W> listing = (WindowContents.Listing<IN, W>) contents;
    List<TimestampedValue<IN>> elements = listing.get(stateWindow);
    if (elements.isEmpty()) {
      return;
    }
    int before = elements.size();
    if (evictor != null) {
      evictor.evictBefore((Iterable) elements, elements.size(), window, evictorContext);
    }
    List<Object> values = new ArrayList<>(elements.size());
    for (TimestampedValue<IN> e : elements) {
      values.add(e.getValue());
    }
    if (aggregate != null) {
      Object acc = aggregate.createAccumulator();
      for (Object v : values) {
        acc = aggregate.add((IN) v, acc);
      }
      if (!values.isEmpty()) {
        emit(aggregate.getResult(acc));
      }
    } else {
      windowFunction.process(triggerContext.key, functionContext, values, collector);
    }
    if (evictor != null) {
      evictor.evictAfter((Iterable) elements, elements.size(), window, evictorContext);
      if (elements.size() != before) {
        listing.replace(stateWindow, elements);
      }
    }
  }

  private void emit(Object result) throws Exception {
    if (windowFunction == null) {
      output.collect((OUT) result, collector.timestamp);
    } else {
      windowFunction.process(triggerContext.key, functionContext, List.of(result), collector);
    }
  }

  /** Emits results stamped with the end of the firing window. */
  private final class EmitCollector implements Collector<OUT> {
    long timestamp;
    W window;

    @Override
    public void collect(OUT record) {
      output.collect(record, timestamp);
    }
  }

  /** What the window function sees: the firing window, time, state, side outputs. */
  private final class FunctionContext extends ProcessWindowFunction<Object, OUT, K, W>.Context {
    private final KeyedStateStore perWindow = windowState.store(() -> collector.window);

    FunctionContext(ProcessWindowFunction<Object, OUT, K, W> function) {
      function.super();
    }

    @Override
    public W window() {
      return collector.window;
    }

    @Override
    public long currentProcessingTime() {
      return timers.currentProcessingTime();
    }

    @Override
    public long currentWatermark() {
      return timers.currentWatermark();
    }

    @Override
    public KeyedStateStore windowState() {
      return perWindow;
    }

    @Override
    public KeyedStateStore globalState() {
      return backend;
    }

    @Override
    public <X> void output(OutputTag<X> outputTag, X value) {
      output.collect(outputTag, value, collector.timestamp);
    }
  }

  /**
   * Which of the built-in time triggers the window has, whose every step is known: the event-time
   * one with any assigner, the processing-time one with processing-time windows (with event-time
   * windows it fires again on an element after the end, before the cleanup).
   */
  private enum DefaultTrigger {
    EVENT_TIME,
    PROCESSING_TIME,
    OTHER;

    static DefaultTrigger of(Trigger<?, ?> trigger, WindowAssigner<?, ?> assigner) {
      if (trigger instanceof EventTimeTrigger) {
        return EVENT_TIME;
      }
      return trigger instanceof ProcessingTimeTrigger && !assigner.isEventTime()
          ? PROCESSING_TIME
          : OTHER;
    }
  }

  /** What the trigger sees, bound to the current key and window. */
  private final class Context implements Trigger.OnMergeContext {
    K key;
    W window;
    Collection<W> mergedWindows;

    @Override
    public long getCurrentProcessingTime() {
      return timers.currentProcessingTime();
    }

    @Override
    public long getCurrentWatermark() {
      return timers.currentWatermark();
    }

    @Override
    public void registerProcessingTimeTimer(long time) {
      try {
        timers.register(time, window, false);
      } catch (Exception e) {
        throw new IllegalStateException("Cannot register a timer in " + describe(), e);
      }
    }

    @Override
    public void registerEventTimeTimer(long time) {
      try {
        timers.register(time, window, true);
      } catch (Exception e) {
        throw new IllegalStateException("Cannot register a timer in " + describe(), e);
      }
    }

    @Override
    public void deleteProcessingTimeTimer(long time) {
      try {
        timers.delete(time, window, false);
      } catch (Exception e) {
        throw new IllegalStateException("Cannot delete a timer in " + describe(), e);
      }
    }

    @Override
    public void deleteEventTimeTimer(long time) {
      try {
        timers.delete(time, window, true);
      } catch (Exception e) {
        throw new IllegalStateException("Cannot delete a timer in " + describe(), e);
      }
    }

    @Override
    public <S> ValueState<S> getPartitionedState(ValueStateDescriptor<S> stateDescriptor) {
      W bound = window;
      return triggerState.value(stateDescriptor, () -> bound);
    }

    @Override
    public <S> ReducingState<S> getPartitionedState(ReducingStateDescriptor<S> stateDescriptor) {
      W bound = window;
      return triggerState.reducing(stateDescriptor, () -> bound);
    }

    @Override
    public KeyedStateStore getKeyedStateStore() {
      return backend;
    }

    @Override
    public <S> void mergePartitionedState(ReducingStateDescriptor<S> stateDescriptor)
        throws Exception {
      if (mergedWindows != null) {
        triggerState.mergeReducing(stateDescriptor, window, mergedWindows);
      }
    }
  }
}
