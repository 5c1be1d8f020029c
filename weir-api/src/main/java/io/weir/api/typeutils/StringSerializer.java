package io.weir.api.typeutils;

import java.io.EOFException;
import java.io.IOException;
import java.io.UTFDataFormatException;
import java.nio.charset.StandardCharsets;

/**
 * {@code String}, on the per-record hot path.
 *
 * <p>Format: a variable-length int holding {@code length + 1} (0 would mean {@code null}; Weir's
 * top-level values are non-null, but the encoding costs nothing), then each UTF-16 char as a
 * variable-length int of 1 to 3 bytes, 7 bits per byte, high bit set when more bytes follow. ASCII
 * is one byte per char. Encoding UTF-16 units rather than code points round-trips every Java
 * string, including surrogate pairs and unpaired surrogates, with no length limit (unlike {@link
 * java.io.DataOutput#writeUTF}). Writing to a {@link DataOutputSerializer} or reading from a {@link
 * DataInputDeserializer} works on their arrays directly.
 */
final class StringSerializer extends StatelessSerializer<String> {

  static final StringSerializer INSTANCE = new StringSerializer();

  private StringSerializer() {
    super("string");
  }

  @Override
  public boolean isImmutableType() {
    return true;
  }

  @Override
  public String copy(String from) {
    return from;
  }

  @Override
  public void serialize(String record, DataOutputView target) throws IOException {
    writeString(record, target);
  }

  @Override
  public String deserialize(DataInputView source) throws IOException {
    return readString(source);
  }

  static void writeString(String value, DataOutputView target) throws IOException {
    if (target instanceof DataOutputSerializer array) {
      writeToArray(value, array);
      return;
    }
    if (value == null) {
      target.writeByte(0);
      return;
    }
    int length = value.length();
    writeVarInt(length + 1, target);
    for (int i = 0; i < length; i++) {
      char c = value.charAt(i);
      if (c < 0x80) {
        target.writeByte(c);
      } else {
        target.writeByte(c | 0x80);
        int rest = c >>> 7;
        if (rest < 0x80) {
          target.writeByte(rest);
        } else {
          target.writeByte(rest | 0x80);
          target.writeByte(rest >>> 7);
        }
      }
    }
  }

  private static void writeToArray(String value, DataOutputSerializer out) {
    if (value == null) {
      out.write(0);
      return;
    }
    int length = value.length();
    out.writeVarInt(length + 1);
    out.reserve(length);
    byte[] buffer = out.getSharedBuffer();
    int p = out.length();
    int i = 0;
    // ASCII loop first: the common case, one byte per char.
    for (; i < length; i++) {
      char c = value.charAt(i);
      if (c >= 0x80) {
        break;
      }
      buffer[p++] = (byte) c;
    }
    if (i < length) {
      out.setPosition(p);
      out.reserve((int) Math.min(Integer.MAX_VALUE, 3L * (length - i)));
      buffer = out.getSharedBuffer();
      for (; i < length; i++) {
        char c = value.charAt(i);
        if (c < 0x80) {
          buffer[p++] = (byte) c;
        } else {
          buffer[p++] = (byte) (c | 0x80);
          int rest = c >>> 7;
          if (rest < 0x80) {
            buffer[p++] = (byte) rest;
          } else {
            buffer[p++] = (byte) (rest | 0x80);
            buffer[p++] = (byte) (rest >>> 7);
          }
        }
      }
    }
    out.setPosition(p);
  }

  static String readString(DataInputView source) throws IOException {
    if (source instanceof DataInputDeserializer array) {
      return readFromArray(array);
    }
    int lengthPlusOne = readVarInt(source);
    if (lengthPlusOne == 0) {
      return null;
    }
    char[] chars = new char[checkLength(lengthPlusOne - 1)];
    for (int i = 0; i < chars.length; i++) {
      int b = source.readByte();
      if (b >= 0) {
        chars[i] = (char) b;
      } else {
        int c = b & 0x7F;
        b = source.readByte();
        if (b >= 0) {
          c |= b << 7;
        } else {
          c |= (b & 0x7F) << 7;
          c |= checkLastByte(source.readByte()) << 14;
        }
        chars[i] = (char) c;
      }
    }
    return new String(chars);
  }

  private static String readFromArray(DataInputDeserializer in) throws IOException {
    int lengthPlusOne = in.readVarInt();
    if (lengthPlusOne == 0) {
      return null;
    }
    int length = checkLength(lengthPlusOne - 1);
    byte[] buffer = in.sharedBuffer();
    int start = in.getPosition();
    int end = start + in.available();
    if (length > end - start) {
      // Every char takes at least one byte.
      throw new EOFException(
          "A string of " + length + " chars cannot fit in the " + (end - start) + " bytes left");
    }
    int i = 0;
    while (i < length && buffer[start + i] >= 0) {
      i++;
    }
    if (i == length) {
      String ascii = new String(buffer, start, length, StandardCharsets.ISO_8859_1);
      in.skipBytesToRead(length);
      return ascii;
    }
    char[] chars = new char[length];
    int p = start;
    for (int k = 0; k < length; k++) {
      if (p >= end) {
        throw truncated();
      }
      int b = buffer[p++];
      if (b >= 0) {
        chars[k] = (char) b;
      } else {
        if (p >= end) {
          throw truncated();
        }
        int c = b & 0x7F;
        b = buffer[p++];
        if (b >= 0) {
          c |= b << 7;
        } else {
          if (p >= end) {
            throw truncated();
          }
          c |= (b & 0x7F) << 7;
          c |= checkLastByte(buffer[p++]) << 14;
        }
        chars[k] = (char) c;
      }
    }
    in.skipBytesToRead(p - start);
    return new String(chars);
  }

  private static int checkLength(int length) throws IOException {
    if (length < 0) {
      throw new IOException("Corrupt string: negative length " + length);
    }
    return length;
  }

  private static int checkLastByte(int b) throws UTFDataFormatException {
    if ((b & ~0x03) != 0) {
      throw new UTFDataFormatException("Corrupt string: a char encodes more than 16 bits");
    }
    return b;
  }

  private static EOFException truncated() {
    return new EOFException("Corrupt string: the input ends inside it");
  }

  private static void writeVarInt(int value, DataOutputView target) throws IOException {
    while ((value & ~0x7F) != 0) {
      target.writeByte((value & 0x7F) | 0x80);
      value >>>= 7;
    }
    target.writeByte(value);
  }

  private static int readVarInt(DataInputView source) throws IOException {
    int value = 0;
    for (int shift = 0; shift < 35; shift += 7) {
      byte b = source.readByte();
      value |= (b & 0x7F) << shift;
      if (b >= 0) {
        return value;
      }
    }
    throw new IOException("Corrupt string: malformed length");
  }
}
