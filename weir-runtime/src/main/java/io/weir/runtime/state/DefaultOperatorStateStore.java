package io.weir.runtime.state;

import io.weir.api.state.ListState;
import io.weir.api.state.ListStateDescriptor;
import io.weir.api.state.OperatorStateStore;
import io.weir.api.state.StateDescriptor;
import io.weir.api.typeutils.DataInputDeserializer;
import io.weir.api.typeutils.DataOutputSerializer;
import io.weir.api.typeutils.TypeSerializer;
import io.weir.api.typeutils.TypeSerializerSnapshot;
import io.weir.runtime.checkpoint.StateSchema;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Operator state of one operator subtask: named lists, each either split (redistributed round robin
 * on rescale) or union (every subtask gets all elements). Task thread only.
 */
public final class DefaultOperatorStateStore implements OperatorStateStore {

  /** How a list state is redistributed when the parallelism changes. */
  public enum Mode {
    /** Elements are dealt out among the new subtasks. */
    SPLIT,
    /** Every new subtask gets every element. */
    UNION
  }

  private final String operatorName;
  private final Map<String, OperatorListState<?>> states = new LinkedHashMap<>();
  private final Map<String, RestoredList> restored;
  private final ClassLoader userClassLoader;

  /**
   * Serialized elements of a restored list state, deserialized when the state is registered.
   *
   * @param mode how the list was redistributed
   * @param elements each element's bytes, written by the state's element serializer
   * @param serializerSnapshot the versioned snapshot of that serializer ({@link
   *     StateSchema#snapshotBytes}); null when unknown (channel state, splits, old checkpoints)
   */
  public record RestoredList(Mode mode, List<byte[]> elements, byte[] serializerSnapshot) {

    public RestoredList(Mode mode, List<byte[]> elements) {
      this(mode, elements, null);
    }
  }

  public DefaultOperatorStateStore(String operatorName) {
    this(operatorName, Map.of());
  }

  /** A store whose states start with the given restored elements, by state name. */
  public DefaultOperatorStateStore(String operatorName, Map<String, RestoredList> restored) {
    this(operatorName, restored, Thread.currentThread().getContextClassLoader());
  }

  /**
   * A store whose states start with the given restored elements, by state name.
   *
   * @param userClassLoader loads the classes named by the serializer snapshots of restored state
   */
  public DefaultOperatorStateStore(
      String operatorName, Map<String, RestoredList> restored, ClassLoader userClassLoader) {
    this.operatorName = operatorName;
    this.restored = new LinkedHashMap<>(restored);
    this.userClassLoader = userClassLoader;
  }

  @Override
  public <T> ListState<T> getListState(ListStateDescriptor<T> descriptor) {
    return get(descriptor, Mode.SPLIT);
  }

  @Override
  public <T> ListState<T> getUnionListState(ListStateDescriptor<T> descriptor) {
    return get(descriptor, Mode.UNION);
  }

  @SuppressWarnings("unchecked")
  private <T> ListState<T> get(ListStateDescriptor<T> descriptor, Mode mode) {
    OperatorListState<?> existing = states.get(descriptor.getName());
    if (existing != null) {
      if (existing.mode != mode) {
        throw new IllegalStateException(
            "Operator '"
                + operatorName
                + "' registers list state '"
                + descriptor.getName()
                + "' as "
                + mode
                + " but it already exists as "
                + existing.mode);
      }
      return (ListState<T>) existing;
    }
    OperatorListState<T> state = new OperatorListState<>(descriptor, mode);
    RestoredList restoredElements = restored.remove(descriptor.getName());
    if (restoredElements != null) {
      try {
        TypeSerializer<T> serializer =
            readerOf(descriptor, restoredElements.serializerSnapshot(), userClassLoader);
        for (byte[] element : restoredElements.elements()) {
          state.elements.add(serializer.deserialize(new DataInputDeserializer(element)));
        }
      } catch (IOException e) {
        throw new UncheckedIOException(
            "Cannot restore operator state '"
                + descriptor.getName()
                + "' of '"
                + operatorName
                + "' with its serializer: "
                + e.getMessage(),
            e);
      }
    }
    states.put(descriptor.getName(), state);
    return state;
  }

  /**
   * The serializer that reads the restored elements of {@code descriptor}'s state: the new one when
   * it reads them as they are (or nothing says what wrote them), the restored one when they need
   * migration (elements are then read with it and written with the new one from the next snapshot
   * on).
   *
   * @throws io.weir.runtime.recovery.NonRecoverableException naming operator, state and both types
   *     when they are incompatible
   */
  private <T> TypeSerializer<T> readerOf(
      StateDescriptor<T> descriptor, byte[] snapshotBytes, ClassLoader loader) throws IOException {
    TypeSerializer<T> now = descriptor.createSerializer();
    if (snapshotBytes == null) {
      return now;
    }
    TypeSerializerSnapshot<T> old = StateSchema.restoreSnapshot(snapshotBytes, loader);
    return StateMigration.resolve(operatorName, descriptor.getName(), old, now).isCompatibleAsIs()
        ? now
        : old.restoreSerializer();
  }

  @Override
  public Set<String> getRegisteredStateNames() {
    return Collections.unmodifiableSet(states.keySet());
  }

  /**
   * The synchronous and only part of an operator-state snapshot: every list, serialized. Restored
   * lists the operator did not register again are carried over unchanged.
   */
  public Map<String, RestoredList> snapshot() throws IOException {
    Map<String, RestoredList> out = new LinkedHashMap<>(restored);
    DataOutputSerializer buffer = new DataOutputSerializer(64);
    for (Map.Entry<String, OperatorListState<?>> e : states.entrySet()) {
      out.put(e.getKey(), e.getValue().serialize(buffer));
    }
    return out;
  }

  /** The registered states, for snapshots. */
  public Map<String, OperatorListState<?>> getStates() {
    return Collections.unmodifiableMap(states);
  }

  /** One named list of operator state. */
  public static final class OperatorListState<T> implements ListState<T> {
    private final ListStateDescriptor<T> descriptor;
    private final Mode mode;
    private final ArrayList<T> elements = new ArrayList<>();

    OperatorListState(ListStateDescriptor<T> descriptor, Mode mode) {
      this.descriptor = descriptor;
      this.mode = mode;
    }

    public ListStateDescriptor<T> getDescriptor() {
      return descriptor;
    }

    public Mode getMode() {
      return mode;
    }

    RestoredList serialize(DataOutputSerializer buffer) throws IOException {
      TypeSerializer<T> serializer = descriptor.createSerializer();
      List<byte[]> bytes = new ArrayList<>(elements.size());
      for (T element : elements) {
        buffer.clear();
        serializer.serialize(element, buffer);
        bytes.add(buffer.getCopyOfBuffer());
      }
      return new RestoredList(mode, bytes, StateSchema.snapshotBytes(serializer));
    }

    @Override
    public Iterable<T> get() {
      return Collections.unmodifiableList(elements);
    }

    @Override
    public void add(T value) {
      elements.add(Objects.requireNonNull(value, "list state elements must not be null"));
    }

    @Override
    public void update(List<T> values) {
      elements.clear();
      if (values != null) {
        addAll(values);
      }
    }

    @Override
    public void addAll(List<T> values) {
      for (T v : values) {
        add(v);
      }
    }

    @Override
    public void clear() {
      elements.clear();
    }
  }
}
