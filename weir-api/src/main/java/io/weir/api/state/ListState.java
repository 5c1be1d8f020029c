package io.weir.api.state;

import java.util.List;

/** A list of values per key (or per operator instance, for operator state). */
public interface ListState<T> extends AppendingState<T, Iterable<T>> {

  /** The values for the current key; empty, never null, when there are none. */
  @Override
  Iterable<T> get() throws Exception;

  /** Replaces the list for the current key. */
  void update(List<T> values) throws Exception;

  void addAll(List<T> values) throws Exception;
}
