package io.weir.connector.files;

import io.weir.api.source.InputStatus;
import io.weir.api.source.ReaderOutput;
import io.weir.api.source.SimpleVersionedSerializer;
import io.weir.api.source.SourceReader;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/** Polls a source reader as a source task does, collecting what it emits. */
final class ReaderDriver {

  private ReaderDriver() {}

  /** Polls until the end of the input; returns the records. */
  static <T> List<T> readAll(SourceReader<T, ?> reader) throws Exception {
    List<T> records = new ArrayList<>();
    while (poll(reader, records) != InputStatus.END_OF_INPUT) {
      // keep polling
    }
    return records;
  }

  /** Polls at most {@code polls} times, fewer at the end of the input; true at the end. */
  static <T> boolean read(SourceReader<T, ?> reader, int polls, List<T> records) throws Exception {
    for (int i = 0; i < polls; i++) {
      if (poll(reader, records) == InputStatus.END_OF_INPUT) {
        return true;
      }
    }
    return false;
  }

  static <T> InputStatus poll(SourceReader<T, ?> reader, List<T> records) throws Exception {
    return reader.pollNext(
        new ReaderOutput<>() {
          @Override
          public void collect(T record) {
            records.add(record);
          }

          @Override
          public void collect(T record, long timestamp) {
            records.add(record);
          }
        });
  }

  /** The splits as a checkpoint would restore them: through their serializer. */
  static <S> List<S> roundTrip(List<S> splits, SimpleVersionedSerializer<S> serializer)
      throws IOException {
    List<S> restored = new ArrayList<>(splits.size());
    for (S split : splits) {
      restored.add(serializer.deserialize(serializer.getVersion(), serializer.serialize(split)));
    }
    return restored;
  }
}
