package io.weir.api.functions;

/**
 * Gets, per key and window, all elements of the first and all elements of the second input of a
 * {@code coGroup}, as Flink's {@code CoGroupFunction}. It is called for every key and window that
 * holds at least one element of either side, so one of the two may be empty (an outer join is a
 * coGroup that emits for an empty side too).
 */
@FunctionalInterface
public interface CoGroupFunction<IN1, IN2, OUT> extends Function {
  void coGroup(Iterable<IN1> first, Iterable<IN2> second, Collector<OUT> out) throws Exception;
}
