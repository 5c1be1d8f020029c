package io.weir.api.eventtime;

import java.io.Serializable;

/** Creates a {@link TimestampAssigner} in each subtask. */
@FunctionalInterface
public interface TimestampAssignerSupplier<T> extends Serializable {

  TimestampAssigner<T> createTimestampAssigner();

  /** Wraps a serializable assigner. */
  static <T> TimestampAssignerSupplier<T> of(SerializableTimestampAssigner<T> assigner) {
    return () -> assigner;
  }
}
