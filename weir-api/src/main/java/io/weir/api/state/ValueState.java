package io.weir.api.state;

import java.io.IOException;

/** One value per key. */
public interface ValueState<T> extends State {

  /** The value for the current key, or the descriptor's default (null if none). */
  T value() throws IOException;

  /** Sets the value for the current key; null clears it. */
  void update(T value) throws IOException;
}
