package io.weir.api.state;

/** Keyed or operator state. For keyed state, every call is scoped to the current key. */
public interface State {
  /** Removes the value for the current key. */
  void clear();
}
