package io.weir.api.state;

import java.util.Set;

/**
 * State of one operator instance, not tied to keys. On restore with another parallelism, the
 * elements of a split list state are divided among the new instances (round robin), while every
 * instance gets all elements of a union list state.
 */
public interface OperatorStateStore {

  <T> ListState<T> getListState(ListStateDescriptor<T> descriptor) throws Exception;

  <T> ListState<T> getUnionListState(ListStateDescriptor<T> descriptor) throws Exception;

  Set<String> getRegisteredStateNames();
}
