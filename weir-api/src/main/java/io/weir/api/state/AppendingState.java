package io.weir.api.state;

/** State to which values are added and from which a result is read. */
public interface AppendingState<IN, OUT> extends State {

  /** The current result, or null when nothing was added for the current key. */
  OUT get() throws Exception;

  void add(IN value) throws Exception;
}
