package io.weir.api.functions;

/** A simple sink: called once per element. */
@FunctionalInterface
public interface SinkFunction<T> extends Function {

  void invoke(T value, Context context) throws Exception;

  /** What a sink function can see of the current element. */
  interface Context {
    /** The element's timestamp, or null if it has none. */
    Long timestamp();

    long currentProcessingTime();
  }
}
