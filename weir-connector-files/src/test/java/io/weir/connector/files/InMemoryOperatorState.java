package io.weir.connector.files;

import io.weir.api.state.FunctionInitializationContext;
import io.weir.api.state.FunctionSnapshotContext;
import io.weir.api.state.KeyedStateStore;
import io.weir.api.state.ListState;
import io.weir.api.state.ListStateDescriptor;
import io.weir.api.state.OperatorStateStore;
import io.weir.api.typeutils.DataInputDeserializer;
import io.weir.api.typeutils.DataOutputSerializer;
import io.weir.api.typeutils.TypeSerializer;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * Operator state of one simulated subtask. {@link #snapshot()} serializes every element with its
 * descriptor's serializer, as a checkpoint would, and a new instance restores from those bytes, so
 * a restored function never shares objects with the one that took the snapshot.
 */
final class InMemoryOperatorState implements OperatorStateStore {

  /** Serialized elements by state name: what a checkpoint holds of one subtask. */
  record Snapshot(Map<String, List<byte[]>> states) {}

  private final Map<String, Registered<?>> states = new LinkedHashMap<>();
  private final Snapshot restored;

  InMemoryOperatorState() {
    this(null);
  }

  /** A store that starts from {@code restored}; null for a fresh start. */
  InMemoryOperatorState(Snapshot restored) {
    this.restored = restored;
  }

  FunctionInitializationContext initializationContext() {
    return new FunctionInitializationContext() {
      @Override
      public boolean isRestored() {
        return restored != null;
      }

      @Override
      public Optional<Long> getRestoredCheckpointId() {
        return Optional.empty();
      }

      @Override
      public OperatorStateStore getOperatorStateStore() {
        return InMemoryOperatorState.this;
      }

      @Override
      public KeyedStateStore getKeyedStateStore() {
        throw new UnsupportedOperationException("no keyed state in this test");
      }
    };
  }

  static FunctionSnapshotContext checkpoint(long checkpointId) {
    return new FunctionSnapshotContext() {
      @Override
      public long getCheckpointId() {
        return checkpointId;
      }

      @Override
      public long getCheckpointTimestamp() {
        return 1_000L * checkpointId;
      }
    };
  }

  Snapshot snapshot() throws IOException {
    Map<String, List<byte[]>> copy = new LinkedHashMap<>();
    for (Map.Entry<String, Registered<?>> entry : states.entrySet()) {
      copy.put(entry.getKey(), entry.getValue().serialize());
    }
    return new Snapshot(copy);
  }

  @Override
  public <T> ListState<T> getListState(ListStateDescriptor<T> descriptor) throws IOException {
    @SuppressWarnings("unchecked")
    Registered<T> existing = (Registered<T>) states.get(descriptor.getName());
    if (existing != null) {
      return existing;
    }
    Registered<T> state = new Registered<>(descriptor.createSerializer());
    if (restored != null) {
      for (byte[] bytes : restored.states().getOrDefault(descriptor.getName(), List.of())) {
        state.elements.add(state.serializer.deserialize(new DataInputDeserializer(bytes)));
      }
    }
    states.put(descriptor.getName(), state);
    return state;
  }

  @Override
  public <T> ListState<T> getUnionListState(ListStateDescriptor<T> descriptor) throws IOException {
    return getListState(descriptor);
  }

  @Override
  public Set<String> getRegisteredStateNames() {
    return Collections.unmodifiableSet(states.keySet());
  }

  /** A deep copy through Java serialization, as the runtime gives each subtask its own sink. */
  @SuppressWarnings("unchecked")
  static <T> T copyOf(T userObject) {
    try {
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
        out.writeObject(userObject);
      }
      try (ObjectInputStream in =
          new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
        return (T) in.readObject();
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (ClassNotFoundException e) {
      throw new IllegalStateException(e);
    }
  }

  private static final class Registered<T> implements ListState<T> {
    final TypeSerializer<T> serializer;
    final List<T> elements = new ArrayList<>();

    Registered(TypeSerializer<T> serializer) {
      this.serializer = serializer;
    }

    List<byte[]> serialize() throws IOException {
      List<byte[]> out = new ArrayList<>(elements.size());
      DataOutputSerializer buffer = new DataOutputSerializer(64);
      for (T element : elements) {
        buffer.clear();
        serializer.serialize(element, buffer);
        out.add(buffer.getCopyOfBuffer());
      }
      return out;
    }

    @Override
    public Iterable<T> get() {
      return Collections.unmodifiableList(new ArrayList<>(elements));
    }

    @Override
    public void add(T value) {
      elements.add(Objects.requireNonNull(value, "list state elements must not be null"));
    }

    @Override
    public void update(List<T> values) {
      elements.clear();
      addAll(values);
    }

    @Override
    public void addAll(List<T> values) {
      values.forEach(this::add);
    }

    @Override
    public void clear() {
      elements.clear();
    }
  }
}
