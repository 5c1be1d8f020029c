package io.weir.api.typeutils;

import java.io.EOFException;
import java.io.IOException;
import java.io.UTFDataFormatException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * A {@link DataInputView} over a byte-array slice that can be re-pointed at another slice without
 * allocating. Big-endian, like {@link java.io.DataInputStream}. Not thread-safe.
 */
public final class DataInputDeserializer implements DataInputView {

  // One big-endian load each instead of a load per byte (the JIT does not merge byte loads).
  private static final VarHandle INT =
      MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);
  private static final VarHandle LONG =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

  private static final byte[] EMPTY = new byte[0];

  private byte[] buffer = EMPTY;
  private int position;
  private int end;

  public DataInputDeserializer() {}

  public DataInputDeserializer(byte[] buffer) {
    setBuffer(buffer, 0, buffer.length);
  }

  public DataInputDeserializer(byte[] buffer, int offset, int length) {
    setBuffer(buffer, offset, length);
  }

  /** Reads from {@code buffer[offset, offset + length)} from now on. */
  public void setBuffer(byte[] buffer, int offset, int length) {
    if (offset < 0 || length < 0 || offset + length > buffer.length) {
      throw new IllegalArgumentException(
          "slice [" + offset + ", " + (offset + length) + ") outside " + buffer.length + " bytes");
    }
    this.buffer = buffer;
    this.position = offset;
    this.end = offset + length;
  }

  public int getPosition() {
    return position;
  }

  public int available() {
    return end - position;
  }

  /**
   * The array being read, for serializers in this package that decode straight from it between
   * {@link #getPosition()} and {@code getPosition() + available()}, then {@link #skipBytesToRead}.
   */
  byte[] sharedBuffer() {
    return buffer;
  }

  private void need(int n) throws EOFException {
    if (end - position < n) {
      throw new EOFException(
          "Needed " + n + " more bytes but only " + (end - position) + " remain");
    }
  }

  @Override
  public void readFully(byte[] b) throws IOException {
    readFully(b, 0, b.length);
  }

  @Override
  public void readFully(byte[] b, int off, int len) throws IOException {
    need(len);
    System.arraycopy(buffer, position, b, off, len);
    position += len;
  }

  @Override
  public int read(byte[] b, int off, int len) {
    if (position >= end) {
      return len == 0 ? 0 : -1;
    }
    int n = Math.min(len, end - position);
    System.arraycopy(buffer, position, b, off, n);
    position += n;
    return n;
  }

  @Override
  public int skipBytes(int n) {
    int skipped = Math.max(0, Math.min(n, end - position));
    position += skipped;
    return skipped;
  }

  @Override
  public void skipBytesToRead(int numBytes) throws IOException {
    need(numBytes);
    position += numBytes;
  }

  @Override
  public boolean readBoolean() throws IOException {
    return readByte() != 0;
  }

  @Override
  public byte readByte() throws IOException {
    need(1);
    return buffer[position++];
  }

  @Override
  public int readUnsignedByte() throws IOException {
    return readByte() & 0xFF;
  }

  @Override
  public short readShort() throws IOException {
    need(2);
    short v = (short) (((buffer[position] & 0xFF) << 8) | (buffer[position + 1] & 0xFF));
    position += 2;
    return v;
  }

  @Override
  public int readUnsignedShort() throws IOException {
    return readShort() & 0xFFFF;
  }

  @Override
  public char readChar() throws IOException {
    return (char) readShort();
  }

  @Override
  public int readInt() throws IOException {
    need(4);
    int p = position;
    position = p + 4;
    return (int) INT.get(buffer, p);
  }

  @Override
  public long readLong() throws IOException {
    need(8);
    int p = position;
    position = p + 8;
    return (long) LONG.get(buffer, p);
  }

  @Override
  public float readFloat() throws IOException {
    return Float.intBitsToFloat(readInt());
  }

  @Override
  public double readDouble() throws IOException {
    return Double.longBitsToDouble(readLong());
  }

  @Override
  public String readLine() {
    throw new UnsupportedOperationException("readLine is not supported; use readUTF");
  }

  @Override
  public String readUTF() throws IOException {
    int utfLen = readUnsignedShort();
    need(utfLen);
    char[] chars = new char[utfLen];
    int count = 0;
    int limit = position + utfLen;
    int p = position;
    while (p < limit) {
      int c = buffer[p] & 0xFF;
      if (c < 0x80) {
        chars[count++] = (char) c;
        p++;
      } else if ((c >> 5) == 0x06) {
        if (p + 1 >= limit) {
          throw new UTFDataFormatException("malformed input: partial character at end");
        }
        chars[count++] = (char) (((c & 0x1F) << 6) | (buffer[p + 1] & 0x3F));
        p += 2;
      } else if ((c >> 4) == 0x0E) {
        if (p + 2 >= limit) {
          throw new UTFDataFormatException("malformed input: partial character at end");
        }
        chars[count++] =
            (char) (((c & 0x0F) << 12) | ((buffer[p + 1] & 0x3F) << 6) | (buffer[p + 2] & 0x3F));
        p += 3;
      } else {
        throw new UTFDataFormatException("malformed input around byte " + (p - position));
      }
    }
    position = limit;
    return new String(chars, 0, count);
  }

  /** Reads a value written by {@link DataOutputSerializer#writeVarInt}. */
  public int readVarInt() throws IOException {
    int value = 0;
    for (int shift = 0; shift < 35; shift += 7) {
      byte b = readByte();
      value |= (b & 0x7F) << shift;
      if (b >= 0) {
        return value;
      }
    }
    throw new IOException("Malformed variable-length int");
  }
}
