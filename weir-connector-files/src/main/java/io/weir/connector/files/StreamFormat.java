package io.weir.connector.files;

import io.weir.api.source.SourceReader;
import io.weir.api.typeutils.ResultTypeQueryable;
import java.io.Serializable;

/**
 * How a {@link FileSource} turns the bytes of a file into records, as Flink's {@code StreamFormat}.
 * Weir has one: {@link TextLineInputFormat}, the lines of text files.
 */
public abstract class StreamFormat<T> implements Serializable, ResultTypeQueryable<T> {
  private static final long serialVersionUID = 1L;

  /** Only the formats of this package: a reader must know each record's exact file offset. */
  StreamFormat() {}

  /** A reader of this format's records, from its file splits. */
  abstract SourceReader<T, FileSplit> createReader();
}
