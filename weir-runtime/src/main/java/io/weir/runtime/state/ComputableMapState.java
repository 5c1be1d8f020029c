package io.weir.runtime.state;

import io.weir.api.state.MapState;
import java.util.function.BiFunction;

/**
 * A map state that replaces one entry of the current key in a single lookup, as {@link
 * java.util.Map#compute} does: the heap backend's, where a {@code get} and a {@code put} of the
 * same entry would look the key and the entry up twice each. Runtime-internal (the window
 * operator's accumulators); task thread only.
 *
 * @param <UK> the map's key
 * @param <UV> the map's value
 */
public interface ComputableMapState<UK, UV> extends MapState<UK, UV> {

  /**
   * Sets the current key's entry for {@code key} to what {@code update} makes of its value (null
   * when there is none); a null result removes the entry.
   *
   * @return the new value
   */
  UV compute(UK key, BiFunction<? super UK, ? super UV, ? extends UV> update);
}
