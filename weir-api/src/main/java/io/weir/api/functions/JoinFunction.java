package io.weir.api.functions;

/** Combines a pair of joined elements into one result, as Flink's {@code JoinFunction}. */
@FunctionalInterface
public interface JoinFunction<IN1, IN2, OUT> extends Function {
  OUT join(IN1 first, IN2 second) throws Exception;
}
