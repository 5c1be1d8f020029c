package io.weir.api.typeutils;

import java.io.DataOutput;
import java.io.IOException;

/** Where serializers write: a {@link DataOutput} that can also copy raw bytes from an input. */
public interface DataOutputView extends DataOutput {

  /** Copies {@code numBytes} bytes from {@code source} to this view without interpreting them. */
  void write(DataInputView source, int numBytes) throws IOException;
}
