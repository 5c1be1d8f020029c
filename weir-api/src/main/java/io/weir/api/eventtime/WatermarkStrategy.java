package io.weir.api.eventtime;

import java.io.Serializable;
import java.time.Duration;
import java.util.Objects;

/**
 * How a stream gets its event time: a timestamp assigner for the records and a watermark generator,
 * as in Flink. Given to {@code StreamEnvironment.fromSource(source, strategy, name)}, where the
 * watermarks are generated per source split and combined per subtask, or to {@code
 * DataStream.assignTimestampsAndWatermarks(strategy)}.
 *
 * <pre>{@code
 * WatermarkStrategy.<Event>forBoundedOutOfOrderness(Duration.ofSeconds(5))
 *     .withTimestampAssigner((event, ts) -> event.time())
 *     .withIdleness(Duration.ofMinutes(1));
 * }</pre>
 */
public interface WatermarkStrategy<T> extends Serializable {

  WatermarkGenerator<T> createWatermarkGenerator(WatermarkGeneratorSupplier.Context context);

  /** By default the timestamp the record already carries (set by the source). */
  default TimestampAssigner<T> createTimestampAssigner() {
    return (element, recordTimestamp) -> recordTimestamp;
  }

  /** The same watermarks, with timestamps taken from the records by {@code assigner}. */
  default WatermarkStrategy<T> withTimestampAssigner(SerializableTimestampAssigner<T> assigner) {
    Objects.requireNonNull(assigner, "timestamp assigner");
    return withTimestampAssigner(TimestampAssignerSupplier.of(assigner));
  }

  /** The same watermarks, with timestamps from the assigners {@code supplier} creates. */
  default WatermarkStrategy<T> withTimestampAssigner(TimestampAssignerSupplier<T> supplier) {
    Objects.requireNonNull(supplier, "timestamp assigner supplier");
    WatermarkStrategy<T> base = this;
    return new WatermarkStrategy<>() {
      private static final long serialVersionUID = 1L;

      @Override
      public WatermarkGenerator<T> createWatermarkGenerator(
          WatermarkGeneratorSupplier.Context context) {
        return base.createWatermarkGenerator(context);
      }

      @Override
      public TimestampAssigner<T> createTimestampAssigner() {
        return supplier.createTimestampAssigner();
      }

      @Override
      public boolean emitsWatermarks() {
        return base.emitsWatermarks();
      }
    };
  }

  /**
   * The same strategy, and an input (split or subtask) without records for {@code idleTimeout} is
   * marked idle: downstream event time moves on without it until it has records again.
   */
  default WatermarkStrategy<T> withIdleness(Duration idleTimeout) {
    Objects.requireNonNull(idleTimeout, "idle timeout");
    if (idleTimeout.isNegative() || idleTimeout.isZero()) {
      throw new IllegalArgumentException(
          "withIdleness: the idle timeout must be positive, but was " + idleTimeout);
    }
    WatermarkStrategy<T> base = this;
    return new WatermarkStrategy<>() {
      private static final long serialVersionUID = 1L;

      @Override
      public WatermarkGenerator<T> createWatermarkGenerator(
          WatermarkGeneratorSupplier.Context context) {
        return new WatermarksWithIdleness<>(base.createWatermarkGenerator(context), idleTimeout);
      }

      @Override
      public TimestampAssigner<T> createTimestampAssigner() {
        return base.createTimestampAssigner();
      }

      @Override
      public boolean emitsWatermarks() {
        return base.emitsWatermarks();
      }
    };
  }

  /**
   * False for {@link #noWatermarks()}: the runtime then adds nothing to the path of a record (no
   * assigner call, no generator, no periodic timer).
   */
  default boolean emitsWatermarks() {
    return true;
  }

  /** For timestamps that never decrease. */
  static <T> WatermarkStrategy<T> forMonotonousTimestamps() {
    return ctx -> new AscendingTimestampsWatermarks<>();
  }

  /** For records at most {@code maxOutOfOrderness} out of order. */
  static <T> WatermarkStrategy<T> forBoundedOutOfOrderness(Duration maxOutOfOrderness) {
    Objects.requireNonNull(maxOutOfOrderness, "maxOutOfOrderness");
    new BoundedOutOfOrdernessWatermarks<T>(maxOutOfOrderness); // validates the bound now
    return ctx -> new BoundedOutOfOrdernessWatermarks<>(maxOutOfOrderness);
  }

  /** With a generator of your own. */
  static <T> WatermarkStrategy<T> forGenerator(WatermarkGeneratorSupplier<T> supplier) {
    Objects.requireNonNull(supplier, "watermark generator supplier");
    return supplier::createWatermarkGenerator;
  }

  /** No watermarks: for jobs on processing time only. */
  static <T> WatermarkStrategy<T> noWatermarks() {
    return new WatermarkStrategy<>() {
      private static final long serialVersionUID = 1L;

      @Override
      public WatermarkGenerator<T> createWatermarkGenerator(
          WatermarkGeneratorSupplier.Context context) {
        return new NoWatermarksGenerator<>();
      }

      @Override
      public boolean emitsWatermarks() {
        return false;
      }
    };
  }
}
