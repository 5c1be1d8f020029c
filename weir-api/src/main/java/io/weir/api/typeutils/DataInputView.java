package io.weir.api.typeutils;

import java.io.DataInput;
import java.io.IOException;

/** Where serializers read from: a {@link DataInput} that can also skip and read into arrays. */
public interface DataInputView extends DataInput {

  /** Skips exactly {@code numBytes} bytes or throws {@link java.io.EOFException}. */
  void skipBytesToRead(int numBytes) throws IOException;

  /** Reads up to {@code len} bytes into {@code b}; returns the number read or -1 at the end. */
  int read(byte[] b, int off, int len) throws IOException;
}
