package io.weir.runtime.state;

import io.weir.api.functions.AggregateFunction;
import io.weir.api.functions.ReduceFunction;
import io.weir.api.state.AggregatingState;
import io.weir.api.state.AggregatingStateDescriptor;
import io.weir.api.state.ListState;
import io.weir.api.state.ListStateDescriptor;
import io.weir.api.state.MapStateDescriptor;
import io.weir.api.state.ReducingState;
import io.weir.api.state.ReducingStateDescriptor;
import io.weir.api.state.StateDescriptor;
import io.weir.api.state.ValueState;
import io.weir.api.state.ValueStateDescriptor;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.Objects;
import java.util.function.BiFunction;

/** The heap implementations of the keyed state interfaces. */
final class HeapStates {

  private HeapStates() {}

  static final class Value<K, T> extends HeapKeyedStateBackend.HeapState<K, T>
      implements ValueState<T> {
    private final T defaultValue;

    Value(HeapKeyedStateBackend<K> backend, ValueStateDescriptor<T> d, StateTable<K, Object> t) {
      super(backend, t, StateDescriptor.Kind.VALUE);
      this.defaultValue = d.getDefaultValue();
    }

    @Override
    public T value() {
      T v = getInternal();
      return v != null ? v : defaultValue;
    }

    @Override
    public void update(T value) {
      if (value == null) {
        clear();
      } else {
        putInternal(value);
      }
    }
  }

  static final class List<K, T> extends HeapKeyedStateBackend.HeapState<K, ArrayList<T>>
      implements ListState<T> {

    List(HeapKeyedStateBackend<K> backend, ListStateDescriptor<T> d, StateTable<K, Object> t) {
      super(backend, t, StateDescriptor.Kind.LIST);
    }

    @Override
    public Iterable<T> get() {
      ArrayList<T> list = getInternal();
      return list == null ? Collections.emptyList() : Collections.unmodifiableList(list);
    }

    @Override
    public void add(T value) {
      Objects.requireNonNull(value, "ListState does not hold null elements");
      ArrayList<T> list = getInternal();
      if (list == null) {
        list = new ArrayList<>();
        putInternal(list);
      }
      list.add(value);
    }

    @Override
    public void update(java.util.List<T> values) {
      if (values == null || values.isEmpty()) {
        clear();
        return;
      }
      ArrayList<T> copy = new ArrayList<>(values.size());
      for (T v : values) {
        copy.add(Objects.requireNonNull(v, "ListState does not hold null elements"));
      }
      putInternal(copy);
    }

    @Override
    public void addAll(java.util.List<T> values) {
      for (T v : values) {
        add(v);
      }
    }
  }

  static final class Map<K, UK, UV> extends HeapKeyedStateBackend.HeapState<K, HashMap<UK, UV>>
      implements ComputableMapState<UK, UV> {

    Map(HeapKeyedStateBackend<K> backend, MapStateDescriptor<UK, UV> d, StateTable<K, Object> t) {
      super(backend, t, StateDescriptor.Kind.MAP);
    }

    private HashMap<UK, UV> mapOrEmpty() {
      HashMap<UK, UV> m = getInternal();
      return m == null ? new HashMap<>(0) : m;
    }

    private HashMap<UK, UV> mapForWrite() {
      HashMap<UK, UV> m = getInternal();
      if (m == null) {
        m = new HashMap<>();
        putInternal(m);
      }
      return m;
    }

    @Override
    public UV get(UK key) {
      HashMap<UK, UV> m = getInternal();
      return m == null ? null : m.get(key);
    }

    @Override
    public void put(UK key, UV value) {
      mapForWrite().put(key, value);
    }

    @Override
    public UV compute(UK key, BiFunction<? super UK, ? super UV, ? extends UV> update) {
      HashMap<UK, UV> m = getInternal();
      if (m == null) {
        UV value = update.apply(key, null);
        if (value != null) {
          m = new HashMap<>();
          m.put(key, value);
          putInternal(m);
        }
        return value;
      }
      UV value = m.compute(key, update);
      if (m.isEmpty()) {
        clear();
      }
      return value;
    }

    @Override
    public void putAll(java.util.Map<UK, UV> map) {
      mapForWrite().putAll(map);
    }

    @Override
    public void remove(UK key) {
      HashMap<UK, UV> m = getInternal();
      if (m != null) {
        m.remove(key);
        if (m.isEmpty()) {
          clear();
        }
      }
    }

    @Override
    public boolean contains(UK key) {
      HashMap<UK, UV> m = getInternal();
      return m != null && m.containsKey(key);
    }

    @Override
    public Iterable<java.util.Map.Entry<UK, UV>> entries() {
      return Collections.unmodifiableMap(mapOrEmpty()).entrySet();
    }

    @Override
    public Iterable<UK> keys() {
      return Collections.unmodifiableSet(mapOrEmpty().keySet());
    }

    @Override
    public Iterable<UV> values() {
      return Collections.unmodifiableCollection(mapOrEmpty().values());
    }

    @Override
    public boolean isEmpty() {
      HashMap<UK, UV> m = getInternal();
      return m == null || m.isEmpty();
    }
  }

  static final class Reducing<K, T> extends HeapKeyedStateBackend.HeapState<K, T>
      implements ReducingState<T> {
    private final ReduceFunction<T> reduce;

    Reducing(
        HeapKeyedStateBackend<K> backend, ReducingStateDescriptor<T> d, StateTable<K, Object> t) {
      super(backend, t, StateDescriptor.Kind.REDUCING);
      this.reduce = d.getReduceFunction();
    }

    @Override
    public T get() {
      return getInternal();
    }

    @Override
    public void add(T value) throws Exception {
      T old = getInternal();
      putInternal(old == null ? value : reduce.reduce(old, value));
    }
  }

  static final class Aggregating<K, IN, ACC, OUT> extends HeapKeyedStateBackend.HeapState<K, ACC>
      implements AggregatingState<IN, OUT> {
    private final AggregateFunction<IN, ACC, OUT> aggregate;

    Aggregating(
        HeapKeyedStateBackend<K> backend,
        AggregatingStateDescriptor<IN, ACC, OUT> d,
        StateTable<K, Object> t) {
      super(backend, t, StateDescriptor.Kind.AGGREGATING);
      this.aggregate = d.getAggregateFunction();
    }

    @Override
    public OUT get() {
      ACC acc = getInternal();
      return acc == null ? null : aggregate.getResult(acc);
    }

    @Override
    public void add(IN value) {
      ACC acc = getInternal();
      if (acc == null) {
        acc = aggregate.createAccumulator();
      }
      putInternal(aggregate.add(value, acc));
    }
  }
}
