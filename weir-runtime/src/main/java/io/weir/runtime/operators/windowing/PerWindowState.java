package io.weir.runtime.operators.windowing;

import io.weir.api.functions.ReduceFunction;
import io.weir.api.state.AggregatingState;
import io.weir.api.state.AggregatingStateDescriptor;
import io.weir.api.state.KeyedStateStore;
import io.weir.api.state.ListState;
import io.weir.api.state.ListStateDescriptor;
import io.weir.api.state.MapState;
import io.weir.api.state.MapStateDescriptor;
import io.weir.api.state.ReducingState;
import io.weir.api.state.ReducingStateDescriptor;
import io.weir.api.state.StateDescriptor;
import io.weir.api.state.ValueState;
import io.weir.api.state.ValueStateDescriptor;
import io.weir.api.typeutils.TypeSerializer;
import io.weir.api.windowing.windows.Window;
import io.weir.runtime.state.KeyedStateBackend;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Supplier;

/**
 * State per key and window, for triggers ({@code getPartitionedState}) and {@code
 * ProcessWindowFunction.Context.windowState()}: the keyed backend has no namespaces, so each named
 * state is one keyed {@link MapState} from window to value, and a view binds it to one window.
 * Value and reducing state are supported (those Flink's triggers use). Task thread only.
 */
final class PerWindowState<W extends Window> {

  private final KeyedStateBackend<?> backend;
  private final TypeSerializer<W> windowSerializer;
  private final String prefix;
  private final String operatorName;
  private final Map<String, MapState<W, Object>> states = new HashMap<>();

  PerWindowState(
      KeyedStateBackend<?> backend,
      TypeSerializer<W> windowSerializer,
      String prefix,
      String operatorName) {
    this.backend = backend;
    this.windowSerializer = windowSerializer;
    this.prefix = prefix;
    this.operatorName = operatorName;
  }

  @SuppressWarnings("unchecked")
  private <V> MapState<W, V> map(StateDescriptor<V> descriptor) {
    return (MapState<W, V>)
        (MapState<W, ?>)
            states.computeIfAbsent(
                descriptor.getName(),
                name ->
                    (MapState<W, Object>)
                        (MapState<W, ?>)
                            backend.getMapState(
                                new MapStateDescriptor<>(
                                    prefix + name,
                                    windowSerializer.duplicate(),
                                    descriptor.createSerializer())));
  }

  <V> ValueState<V> value(ValueStateDescriptor<V> descriptor, Supplier<W> window) {
    MapState<W, V> map = map(descriptor);
    return new ValueState<>() {
      @Override
      public V value() throws java.io.IOException {
        try {
          V v = map.get(window.get());
          return v != null ? v : descriptor.getDefaultValue();
        } catch (java.io.IOException | RuntimeException e) {
          throw e;
        } catch (Exception e) {
          throw new java.io.IOException(e);
        }
      }

      @Override
      public void update(V value) throws java.io.IOException {
        try {
          if (value == null) {
            map.remove(window.get());
          } else {
            map.put(window.get(), value);
          }
        } catch (java.io.IOException | RuntimeException e) {
          throw e;
        } catch (Exception e) {
          throw new java.io.IOException(e);
        }
      }

      @Override
      public void clear() {
        try {
          map.remove(window.get());
        } catch (Exception e) {
          throw new IllegalStateException(
              "Cannot clear window state '" + descriptor.getName() + "' of " + operatorName, e);
        }
      }
    };
  }

  <V> ReducingState<V> reducing(ReducingStateDescriptor<V> descriptor, Supplier<W> window) {
    MapState<W, V> map = map(descriptor);
    ReduceFunction<V> reducer = descriptor.getReduceFunction();
    return new ReducingState<>() {
      @Override
      public V get() throws Exception {
        return map.get(window.get());
      }

      @Override
      public void add(V value) throws Exception {
        W w = window.get();
        V current = map.get(w);
        map.put(w, current == null ? value : reducer.reduce(current, value));
      }

      @Override
      public void clear() {
        try {
          map.remove(window.get());
        } catch (Exception e) {
          throw new IllegalStateException(
              "Cannot clear window state '" + descriptor.getName() + "' of " + operatorName, e);
        }
      }
    };
  }

  /** Reduces the values of {@code sources} into {@code target} and removes theirs. */
  <V> void mergeReducing(ReducingStateDescriptor<V> descriptor, W target, Iterable<W> sources)
      throws Exception {
    MapState<W, V> map = map(descriptor);
    ReduceFunction<V> reducer = descriptor.getReduceFunction();
    V merged = map.get(target);
    for (W source : sources) {
      if (source.equals(target)) {
        continue;
      }
      V v = map.get(source);
      if (v != null) {
        merged = merged == null ? v : reducer.reduce(merged, v);
        map.remove(source);
      }
    }
    if (merged != null) {
      map.put(target, merged);
    }
  }

  /** The store a window function sees as {@code windowState()}, bound to {@code window}. */
  KeyedStateStore store(Supplier<W> window) {
    return new KeyedStateStore() {
      @Override
      public <T> ValueState<T> getState(ValueStateDescriptor<T> descriptor) {
        return value(descriptor, window);
      }

      @Override
      public <T> ReducingState<T> getReducingState(ReducingStateDescriptor<T> descriptor) {
        return reducing(descriptor, window);
      }

      @Override
      public <T> ListState<T> getListState(ListStateDescriptor<T> descriptor) {
        throw unsupported("list", descriptor.getName());
      }

      @Override
      public <UK, UV> MapState<UK, UV> getMapState(MapStateDescriptor<UK, UV> descriptor) {
        throw unsupported("map", descriptor.getName());
      }

      @Override
      public <IN, ACC, OUT> AggregatingState<IN, OUT> getAggregatingState(
          AggregatingStateDescriptor<IN, ACC, OUT> descriptor) {
        throw unsupported("aggregating", descriptor.getName());
      }
    };
  }

  private UnsupportedOperationException unsupported(String kind, String name) {
    return new UnsupportedOperationException(
        "Window state '"
            + name
            + "' of "
            + operatorName
            + ": per-window "
            + kind
            + " state is not supported; use value or reducing state per window, or keep it in"
            + " globalState()");
  }
}
