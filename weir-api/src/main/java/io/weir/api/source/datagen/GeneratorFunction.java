package io.weir.api.source.datagen;

import io.weir.api.source.SourceReaderContext;
import java.io.Serializable;

/**
 * Turns the index of a record (0, 1, 2, ...) into the record, for a {@link DataGeneratorSource}, as
 * Flink's {@code GeneratorFunction}. It runs on the source's task thread; the same index always
 * belongs to the same record, which is how the source replays exactly after a restore.
 */
@FunctionalInterface
public interface GeneratorFunction<T, O> extends Serializable {

  /** Called on the reader's task thread before the first record. */
  default void open(SourceReaderContext readerContext) throws Exception {}

  O map(T value) throws Exception;

  /** Called when the reader closes. */
  default void close() throws Exception {}
}
