package io.weir.api.sink;

/** Writes the elements of one sink subtask. All calls come from the task thread. */
public interface SinkWriter<T> extends AutoCloseable {

  void write(T element, Context context) throws Exception;

  /** Makes everything written so far durable or visible; {@code endOfInput} on the last call. */
  default void flush(boolean endOfInput) throws Exception {}

  @Override
  default void close() throws Exception {}

  /** What a writer knows of the current element. */
  interface Context {
    /** The element's timestamp, or null if it has none. */
    Long timestamp();
  }
}
