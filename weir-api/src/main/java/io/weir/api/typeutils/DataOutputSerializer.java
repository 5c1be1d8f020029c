package io.weir.api.typeutils;

import java.io.IOException;
import java.io.UTFDataFormatException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A {@link DataOutputView} over a growing byte array, reused between records so that writing a
 * record allocates nothing once the array is large enough. Big-endian, like {@link
 * java.io.DataOutputStream}. Not thread-safe.
 */
public final class DataOutputSerializer implements DataOutputView {

  // One big-endian store each instead of a store per byte.
  private static final VarHandle INT =
      MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);
  private static final VarHandle LONG =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

  private byte[] buffer;
  private int position;

  public DataOutputSerializer(int initialSize) {
    if (initialSize < 1) {
      throw new IllegalArgumentException("initialSize must be positive, was " + initialSize);
    }
    this.buffer = new byte[initialSize];
  }

  /** The array being written to; valid bytes are {@code [0, length())}. */
  public byte[] getSharedBuffer() {
    return buffer;
  }

  /** A copy of the bytes written so far. */
  public byte[] getCopyOfBuffer() {
    return Arrays.copyOf(buffer, position);
  }

  public int length() {
    return position;
  }

  /** Forgets what was written, keeping the array. */
  public void clear() {
    position = 0;
  }

  /**
   * Writes from now on into {@code array} from {@code position}, as if it held what was written so
   * far; a write past its end moves to a larger copy, as always. Lets a caller that knows a value's
   * exact length serialize it straight into memory of its own.
   */
  public void wrap(byte[] array, int position) {
    if (position < 0 || position > array.length) {
      throw new IllegalArgumentException("position " + position + " outside the array");
    }
    this.buffer = array;
    this.position = position;
  }

  /** Moves the write position, for back-patching a length written earlier. */
  public void setPosition(int position) {
    if (position < 0 || position > buffer.length) {
      throw new IllegalArgumentException("position " + position + " outside the buffer");
    }
    this.position = position;
  }

  /**
   * Makes room for {@code extra} more bytes, for serializers in this package that write straight
   * into {@link #getSharedBuffer()} at {@link #length()} and then move {@link #setPosition}.
   */
  void reserve(int extra) {
    ensure(extra);
  }

  private void ensure(int extra) {
    int needed = position + extra;
    if (needed > buffer.length) {
      if (needed < 0) {
        throw new IllegalStateException("A serialized value exceeds 2 GiB");
      }
      buffer = Arrays.copyOf(buffer, Math.max(needed, buffer.length * 2));
    }
  }

  @Override
  public void write(int b) {
    ensure(1);
    buffer[position++] = (byte) b;
  }

  @Override
  public void write(byte[] b) {
    write(b, 0, b.length);
  }

  @Override
  public void write(byte[] b, int off, int len) {
    ensure(len);
    System.arraycopy(b, off, buffer, position, len);
    position += len;
  }

  @Override
  public void write(DataInputView source, int numBytes) throws IOException {
    ensure(numBytes);
    source.readFully(buffer, position, numBytes);
    position += numBytes;
  }

  @Override
  public void writeBoolean(boolean v) {
    write(v ? 1 : 0);
  }

  @Override
  public void writeByte(int v) {
    write(v);
  }

  @Override
  public void writeShort(int v) {
    ensure(2);
    buffer[position] = (byte) (v >>> 8);
    buffer[position + 1] = (byte) v;
    position += 2;
  }

  @Override
  public void writeChar(int v) {
    writeShort(v);
  }

  @Override
  public void writeInt(int v) {
    ensure(4);
    INT.set(buffer, position, v);
    position += 4;
  }

  @Override
  public void writeLong(long v) {
    ensure(8);
    LONG.set(buffer, position, v);
    position += 8;
  }

  @Override
  public void writeFloat(float v) {
    writeInt(Float.floatToIntBits(v));
  }

  @Override
  public void writeDouble(double v) {
    writeLong(Double.doubleToLongBits(v));
  }

  @Override
  public void writeBytes(String s) {
    int len = s.length();
    ensure(len);
    for (int i = 0; i < len; i++) {
      buffer[position++] = (byte) s.charAt(i);
    }
  }

  @Override
  public void writeChars(String s) {
    int len = s.length();
    ensure(2 * len);
    for (int i = 0; i < len; i++) {
      writeChar(s.charAt(i));
    }
  }

  /** Modified UTF-8 as in {@link java.io.DataOutputStream#writeUTF}, limited to 65535 bytes. */
  @Override
  public void writeUTF(String s) throws IOException {
    byte[] utf = s.getBytes(StandardCharsets.UTF_8);
    boolean plain = utf.length == s.length() && s.indexOf('\0') < 0;
    if (plain) {
      if (utf.length > 0xFFFF) {
        throw new UTFDataFormatException("String of " + utf.length + " bytes is too long");
      }
      writeShort(utf.length);
      write(utf);
      return;
    }
    int utfLen = 0;
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      utfLen += (c >= 0x0001 && c <= 0x007F) ? 1 : (c > 0x07FF ? 3 : 2);
    }
    if (utfLen > 0xFFFF) {
      throw new UTFDataFormatException("String of " + utfLen + " bytes is too long");
    }
    writeShort(utfLen);
    ensure(utfLen);
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c >= 0x0001 && c <= 0x007F) {
        buffer[position++] = (byte) c;
      } else if (c > 0x07FF) {
        buffer[position++] = (byte) (0xE0 | ((c >> 12) & 0x0F));
        buffer[position++] = (byte) (0x80 | ((c >> 6) & 0x3F));
        buffer[position++] = (byte) (0x80 | (c & 0x3F));
      } else {
        buffer[position++] = (byte) (0xC0 | ((c >> 6) & 0x1F));
        buffer[position++] = (byte) (0x80 | (c & 0x3F));
      }
    }
  }

  /** Writes {@code v} as 1–5 bytes, 7 bits at a time; small non-negative values stay small. */
  public void writeVarInt(int v) {
    ensure(5);
    while ((v & ~0x7F) != 0) {
      buffer[position++] = (byte) ((v & 0x7F) | 0x80);
      v >>>= 7;
    }
    buffer[position++] = (byte) v;
  }
}
