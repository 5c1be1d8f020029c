package io.weir.api;

import io.weir.api.source.Boundedness;
import io.weir.api.source.InputStatus;
import io.weir.api.source.ReaderOutput;
import io.weir.api.source.SimpleVersionedSerializer;
import io.weir.api.source.Source;
import io.weir.api.source.SourceReader;
import io.weir.api.source.SourceReaderContext;
import io.weir.api.typeutils.DataInputDeserializer;
import io.weir.api.typeutils.DataOutputSerializer;
import io.weir.api.typeutils.TypeSerializer;
import io.weir.api.typeutils.TypeSerializerSnapshot;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * The elements of a collection, as one split whose state is the index of the next element. The
 * elements travel serialized with their own {@link TypeSerializer} (and the serializer as its
 * snapshot), so they need not be {@link java.io.Serializable}, as in Flink.
 */
final class CollectionSource<T> implements Source<T, Integer> {
  private static final long serialVersionUID = 1L;

  private final byte[] serializerSnapshot;
  private final byte[] serializedElements;
  private final int count;

  CollectionSource(Collection<T> elements, TypeSerializer<T> serializer) {
    try {
      DataOutputSerializer out = new DataOutputSerializer(256);
      TypeSerializerSnapshot.writeVersionedSnapshot(out, serializer.snapshotConfiguration());
      this.serializerSnapshot = out.getCopyOfBuffer();
      out.clear();
      for (T element : elements) {
        serializer.serialize(element, out);
      }
      this.serializedElements = out.getCopyOfBuffer();
      this.count = elements.size();
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot serialize the elements of fromCollection", e);
    }
  }

  private List<T> elements() {
    try {
      ClassLoader loader = Thread.currentThread().getContextClassLoader();
      TypeSerializer<T> serializer =
          TypeSerializerSnapshot.<T>readVersionedSnapshot(
                  new DataInputDeserializer(serializerSnapshot), loader)
              .restoreSerializer();
      DataInputDeserializer in = new DataInputDeserializer(serializedElements);
      List<T> list = new ArrayList<>(count);
      for (int i = 0; i < count; i++) {
        list.add(serializer.deserialize(in));
      }
      return list;
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read the elements of fromCollection", e);
    }
  }

  @Override
  public Boundedness getBoundedness() {
    return Boundedness.BOUNDED;
  }

  @Override
  public List<Integer> createSplits(int parallelism) {
    return List.of(0);
  }

  @Override
  public SourceReader<T, Integer> createReader(SourceReaderContext context) {
    List<T> elements = elements();
    return new SourceReader<>() {
      private final List<Integer> positions = new ArrayList<>();

      @Override
      public void addSplits(List<Integer> splits) {
        positions.addAll(splits);
      }

      @Override
      public InputStatus pollNext(ReaderOutput<T> output) {
        if (positions.isEmpty()) {
          return InputStatus.END_OF_INPUT;
        }
        int next = positions.get(0);
        if (next >= elements.size()) {
          positions.remove(0);
          return positions.isEmpty() ? InputStatus.END_OF_INPUT : InputStatus.MORE_AVAILABLE;
        }
        output.collect(elements.get(next));
        positions.set(0, next + 1);
        return InputStatus.MORE_AVAILABLE;
      }

      @Override
      public List<Integer> snapshotState(long checkpointId) {
        return List.copyOf(positions);
      }
    };
  }

  @Override
  public SimpleVersionedSerializer<Integer> getSplitSerializer() {
    return IntSplitSerializer.INSTANCE;
  }
}
