package io.weir.runtime.operators;

import io.weir.api.eventtime.TimestampAssigner;
import io.weir.api.eventtime.Watermark;
import io.weir.api.eventtime.WatermarkGenerator;
import io.weir.api.eventtime.WatermarkGeneratorSupplier;
import io.weir.api.eventtime.WatermarkOutput;
import io.weir.api.eventtime.WatermarkStrategy;

/**
 * {@code assignTimestampsAndWatermarks(strategy)}: gives each record the assigner's timestamp,
 * feeds the generator, and emits its watermarks every {@code autoWatermarkIntervalMillis} (a
 * processing-time callback on the task thread). Watermarks from upstream are dropped, except the
 * final one (end of input), as in Flink. Each subtask's last watermark is kept in a union list
 * state: after a restore (at any parallelism) the smallest of them is a floor the new watermarks
 * never go below, and it is emitted with the first periodic emission.
 */
public final class TimestampsAndWatermarksOperator<T> extends StreamOperator<T>
    implements OneInputOperator<T>, WatermarkOutput {

  private final WatermarkStrategy<T> strategy;
  private final long intervalMillis;
  private TimestampAssigner<T> assigner;
  private WatermarkGenerator<T> generator;
  private long emitted = Long.MIN_VALUE;
  private boolean idle;
  private io.weir.runtime.time.ProcessingTimeService.Cancellable timer;
  private boolean closed;
  private io.weir.api.state.ListState<Long> checkpointed;

  /** The restored floor, emitted with the first periodic emission; MIN_VALUE when none. */
  private long restoredFloor = Long.MIN_VALUE;

  public TimestampsAndWatermarksOperator(WatermarkStrategy<T> strategy, long intervalMillis) {
    this.strategy = strategy;
    this.intervalMillis = intervalMillis;
  }

  @Override
  public void initializeState() throws Exception {
    checkpointed =
        context
            .operatorStateStore()
            .getUnionListState(
                new io.weir.api.state.ListStateDescriptor<>(
                    "_watermark", io.weir.api.typeutils.Types.LONG));
    long floor = Long.MAX_VALUE;
    boolean any = false;
    for (Long w : checkpointed.get()) {
      any = true;
      floor = Math.min(floor, w);
    }
    if (any) {
      restoredFloor = floor;
      emitted = floor; // never emit below it
    }
  }

  @Override
  protected void snapshotUserState(long checkpointId, long timestamp) throws Exception {
    checkpointed.update(
        emitted == Long.MIN_VALUE ? java.util.List.of() : java.util.List.of(emitted));
  }

  @Override
  public void open() throws Exception {
    assigner = strategy.createTimestampAssigner();
    generator = strategy.createWatermarkGenerator(new WatermarkGeneratorSupplier.Context() {});
    if (intervalMillis > 0) {
      scheduleNext();
    }
  }

  private void scheduleNext() {
    long next = context.timeService().getCurrentProcessingTime() + intervalMillis;
    timer =
        context
            .timeService()
            .registerTimer(
                next,
                now -> {
                  if (!closed) {
                    if (restoredFloor != Long.MIN_VALUE) {
                      output.emitWatermark(restoredFloor);
                      restoredFloor = Long.MIN_VALUE;
                    }
                    generator.onPeriodicEmit(this);
                    scheduleNext();
                  }
                });
  }

  @Override
  public void processElement(T value, long timestamp) throws Exception {
    long assigned = assigner.extractTimestamp(value, timestamp);
    // The record first, then what the generator makes of it, as in Flink: a watermark at the
    // record's own timestamp must not make the record late.
    output.collect(value, assigned);
    generator.onEvent(value, assigned, this);
  }

  @Override
  public void processWatermark(long watermark) {
    if (watermark == Long.MAX_VALUE && emitted != Long.MAX_VALUE) {
      emitted = watermark;
      output.emitWatermark(watermark);
    }
  }

  @Override
  public void processWatermarkStatus(boolean idle) {
    // This operator decides the stream's event time; upstream idleness does not count.
  }

  @Override
  public void emitWatermark(Watermark watermark) {
    markActive();
    if (watermark.timestamp() > emitted) {
      emitted = watermark.timestamp();
      output.emitWatermark(emitted);
    }
  }

  @Override
  public void markIdle() {
    if (!idle) {
      idle = true;
      output.emitWatermarkStatus(true);
    }
  }

  @Override
  public void markActive() {
    if (idle) {
      idle = false;
      output.emitWatermarkStatus(false);
    }
  }

  @Override
  public void close() throws Exception {
    closed = true;
    if (timer != null) {
      timer.cancel();
    }
  }
}
