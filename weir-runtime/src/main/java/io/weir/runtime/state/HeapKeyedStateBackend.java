package io.weir.runtime.state;

import io.weir.api.state.AggregatingState;
import io.weir.api.state.AggregatingStateDescriptor;
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
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;

/**
 * Keyed state of one operator subtask, as objects on the heap, per key group. Every state access is
 * scoped to the key set by {@link #setCurrentKey}. Snapshots are copy-on-write ({@link
 * HeapSnapshotStrategy}): the synchronous part freezes the tables, the asynchronous part serializes
 * them per key group. Task thread only.
 */
public final class HeapKeyedStateBackend<K> implements KeyedStateBackend<K> {

  private final String operatorName;
  private final TypeSerializer<K> keySerializer;
  private final int maxParallelism;
  private final KeyGroupRange keyGroupRange;

  /** Every state by name: registered by the user, or restored and not registered (yet). */
  final Map<String, RegisteredState<K>> tables = new LinkedHashMap<>();

  private final Map<String, HeapState<K, ?>> states = new LinkedHashMap<>();

  private K currentKey;
  private int currentKeyGroup = -1;

  public HeapKeyedStateBackend(
      String operatorName,
      TypeSerializer<K> keySerializer,
      int maxParallelism,
      KeyGroupRange keyGroupRange) {
    this.operatorName = operatorName;
    this.keySerializer = keySerializer;
    this.maxParallelism = maxParallelism;
    this.keyGroupRange = keyGroupRange;
  }

  /**
   * One state's table with what it takes to write it.
   *
   * @param kind the state kind
   * @param table the values
   * @param valueSerializer serializer of the values (list/map: of the elements/map values)
   * @param mapKeySerializer for map state, serializer of the map keys; otherwise null
   */
  record RegisteredState<K>(
      StateDescriptor.Kind kind,
      StateTable<K, Object> table,
      TypeSerializer<?> valueSerializer,
      TypeSerializer<?> mapKeySerializer) {}

  @Override
  public String getOperatorName() {
    return operatorName;
  }

  @Override
  public KeyGroupRange getKeyGroupRange() {
    return keyGroupRange;
  }

  @Override
  public int getMaxParallelism() {
    return maxParallelism;
  }

  @Override
  public TypeSerializer<K> getKeySerializer() {
    return keySerializer;
  }

  @Override
  public void setCurrentKey(K key) {
    int keyGroup =
        KeyGroupRangeAssignment.checkedKeyGroup(key, maxParallelism, keyGroupRange, operatorName);
    currentKey = key;
    currentKeyGroup = keyGroup;
  }

  @Override
  public K getCurrentKey() {
    return currentKey;
  }

  K currentKeyChecked() {
    if (currentKey == null) {
      throw new IllegalStateException(
          "Keyed state of '"
              + operatorName
              + "' was used outside of processing an element or timer: there is no current key");
    }
    return currentKey;
  }

  int currentKeyGroup() {
    return currentKeyGroup;
  }

  /**
   * Calls {@code action} with every key and value of state {@code stateName} (all key groups of
   * this subtask); nothing if the state does not exist. For rebuilding indexes after a restore.
   */
  public void forEachEntry(String stateName, java.util.function.BiConsumer<K, Object> action) {
    RegisteredState<K> state = tables.get(stateName);
    if (state != null) {
      state.table().forEach(action);
    }
  }

  private final Map<String, HeapTimerQueue<K>> timerQueues = new LinkedHashMap<>();

  @Override
  public TimerQueue<K> getTimerQueue(String name) {
    return timerQueues.computeIfAbsent(name, n -> new HeapTimerQueue<>(this, n));
  }

  @Override
  public KeyedStateSnapshot snapshot(long checkpointId) {
    return HeapSnapshotStrategy.snapshot(this);
  }

  /** Number of entries of all states, for tests and metrics. */
  public int numberOfEntries() {
    int n = 0;
    for (RegisteredState<K> s : tables.values()) {
      n += s.table().size();
    }
    return n;
  }

  /** The table of a state, created (or adopted from a restore) on first registration. */
  @SuppressWarnings("unchecked")
  RegisteredState<K> table(
      StateDescriptor<?> descriptor,
      TypeSerializer<?> valueSerializer,
      TypeSerializer<?> mapKeySerializer) {
    RegisteredState<K> existing = tables.get(descriptor.getName());
    if (existing != null) {
      if (existing.kind() != descriptor.getKind()) {
        throw new IllegalStateException(
            "Operator '"
                + operatorName
                + "' registers state '"
                + descriptor.getName()
                + "' as "
                + descriptor.getKind()
                + " but it "
                + (states.containsKey(descriptor.getName())
                    ? "already exists"
                    : "was restored from the checkpoint")
                + " as "
                + existing.kind()
                + ". Give each state its own name.");
      }
      if (!states.containsKey(descriptor.getName())) {
        // Restored, and registered for the first time: the values were read with the serializer
        // that wrote them, into the classes as they are now, so a migration is already done.
        checkRestored(descriptor.getName(), existing.valueSerializer(), valueSerializer);
        if (mapKeySerializer != null) {
          checkRestored(descriptor.getName(), existing.mapKeySerializer(), mapKeySerializer);
        }
        ((StateTable<K, Object>) (StateTable<K, ?>) existing.table())
            .setValueCopier(HeapSnapshotStrategy.valueCopier(existing.kind(), valueSerializer));
      }
      // Future snapshots write with the serializers the user registers now.
      RegisteredState<K> updated =
          new RegisteredState<>(
              existing.kind(), existing.table(), valueSerializer, mapKeySerializer);
      tables.put(descriptor.getName(), updated);
      return updated;
    }
    RegisteredState<K> created =
        new RegisteredState<>(
            descriptor.getKind(),
            new StateTable<>(
                keyGroupRange,
                HeapSnapshotStrategy.valueCopier(descriptor.getKind(), valueSerializer),
                KeyGroupStore.Layout.of(descriptor.getKind(), keySerializer, valueSerializer)),
            valueSerializer,
            mapKeySerializer);
    tables.put(descriptor.getName(), created);
    return created;
  }

  private void checkRestored(
      String stateName, TypeSerializer<?> restored, TypeSerializer<?> registered) {
    StateMigration.resolve(operatorName, stateName, restored.snapshotConfiguration(), registered);
  }

  @SuppressWarnings("unchecked")
  private <S extends HeapState<K, ?>> S getOrCreate(
      StateDescriptor<?> descriptor, Function<StateTable<K, Object>, S> factory) {
    HeapState<K, ?> existing = states.get(descriptor.getName());
    if (existing != null && existing.kind == descriptor.getKind()) {
      return (S) existing;
    }
    TypeSerializer<?> mapKeys =
        descriptor instanceof MapStateDescriptor<?, ?> m ? m.createKeySerializer() : null;
    RegisteredState<K> registered = table(descriptor, descriptor.createSerializer(), mapKeys);
    S created = factory.apply(registered.table());
    states.put(descriptor.getName(), created);
    return created;
  }

  @Override
  public <T> ValueState<T> getState(ValueStateDescriptor<T> descriptor) {
    return getOrCreate(descriptor, t -> new HeapStates.Value<>(this, descriptor, t));
  }

  @Override
  public <T> ListState<T> getListState(ListStateDescriptor<T> descriptor) {
    return getOrCreate(descriptor, t -> new HeapStates.List<>(this, descriptor, t));
  }

  @Override
  public <UK, UV> MapState<UK, UV> getMapState(MapStateDescriptor<UK, UV> descriptor) {
    return getOrCreate(descriptor, t -> new HeapStates.Map<>(this, descriptor, t));
  }

  @Override
  public <T> ReducingState<T> getReducingState(ReducingStateDescriptor<T> descriptor) {
    return getOrCreate(descriptor, t -> new HeapStates.Reducing<>(this, descriptor, t));
  }

  @Override
  public <IN, ACC, OUT> AggregatingState<IN, OUT> getAggregatingState(
      AggregatingStateDescriptor<IN, ACC, OUT> descriptor) {
    return getOrCreate(descriptor, t -> new HeapStates.Aggregating<>(this, descriptor, t));
  }

  /** The base of the heap states: a table and the backend that knows the current key. */
  abstract static class HeapState<K, V> {
    final HeapKeyedStateBackend<K> backend;
    final StateTable<K, Object> table;
    final StateDescriptor.Kind kind;

    HeapState(
        HeapKeyedStateBackend<K> backend, StateTable<K, Object> table, StateDescriptor.Kind kind) {
      this.backend = backend;
      this.table = table;
      this.kind = kind;
    }

    @SuppressWarnings("unchecked")
    final V getInternal() {
      return (V) table.get(backend.currentKeyChecked(), backend.currentKeyGroup());
    }

    final void putInternal(V value) {
      table.put(backend.currentKeyChecked(), backend.currentKeyGroup(), value);
    }

    public final void clear() {
      table.remove(backend.currentKeyChecked(), backend.currentKeyGroup());
    }
  }
}
