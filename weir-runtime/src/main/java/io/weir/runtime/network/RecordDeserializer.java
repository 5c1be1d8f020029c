package io.weir.runtime.network;

import io.weir.api.typeutils.DataInputDeserializer;
import java.util.Arrays;

/**
 * Cuts the byte stream of one channel back into records. A record is framed as a 4-byte header (bit
 * 31: a timestamp follows; bits 0–30: the number of bytes after the header) followed by an optional
 * 8-byte timestamp and the payload. Records that fit in one buffer are read in place; records that
 * span buffers are assembled in a reusable array. Consumer thread only.
 */
public final class RecordDeserializer {

  static final int TIMESTAMP_FLAG = 0x8000_0000;
  static final int LENGTH_MASK = 0x7FFF_FFFF;

  private Buffer buffer;
  private int position;

  private boolean spanning;
  private final byte[] headerBytes = new byte[4];
  private int headerFilled;
  private int spanLength;
  private int spanFilled;
  private byte[] span = new byte[256];

  private boolean lastHasTimestamp;

  /** Feeds the next buffer; the previous one must have been consumed. */
  public void setNextBuffer(Buffer next) {
    if (buffer != null) {
      throw new IllegalStateException("The previous buffer was not consumed yet");
    }
    buffer = next;
    position = 0;
  }

  /** True when a record was read with a timestamp as its first 8 bytes. */
  public boolean lastRecordHasTimestamp() {
    return lastHasTimestamp;
  }

  /** True while a record is only partly received. */
  public boolean hasPartialRecord() {
    return spanning;
  }

  /**
   * Points {@code view} at the next complete record and returns true, or returns false when the
   * current buffer is used up (it is then recycled) and more bytes are needed.
   */
  public boolean nextRecord(DataInputDeserializer view) {
    Buffer b = buffer;
    if (b == null) {
      return false;
    }
    byte[] mem = b.memory();
    int remaining = b.size() - position;
    if (spanning) {
      if (headerFilled < 4) {
        int n = Math.min(4 - headerFilled, remaining);
        System.arraycopy(mem, position, headerBytes, headerFilled, n);
        headerFilled += n;
        position += n;
        remaining -= n;
        if (headerFilled < 4) {
          return consumed();
        }
        startSpan(readInt(headerBytes, 0));
      }
      int n = Math.min(spanLength - spanFilled, remaining);
      System.arraycopy(mem, position, span, spanFilled, n);
      spanFilled += n;
      position += n;
      if (spanFilled < spanLength) {
        return consumed();
      }
      spanning = false;
      view.setBuffer(span, 0, spanLength);
      return true;
    }
    if (remaining == 0) {
      return consumed();
    }
    if (remaining < 4) {
      System.arraycopy(mem, position, headerBytes, 0, remaining);
      headerFilled = remaining;
      spanning = true;
      position += remaining;
      return consumed();
    }
    int header = readInt(mem, position);
    int length = header & LENGTH_MASK;
    lastHasTimestamp = (header & TIMESTAMP_FLAG) != 0;
    if (remaining - 4 >= length) {
      view.setBuffer(mem, position + 4, length);
      position += 4 + length;
      return true;
    }
    position += 4;
    headerFilled = 4;
    spanning = true;
    startSpan(header);
    int n = remaining - 4;
    System.arraycopy(mem, position, span, 0, n);
    spanFilled = n;
    position += n;
    return consumed();
  }

  private void startSpan(int header) {
    spanLength = header & LENGTH_MASK;
    lastHasTimestamp = (header & TIMESTAMP_FLAG) != 0;
    spanFilled = 0;
    if (span.length < spanLength) {
      span = Arrays.copyOf(span, Math.max(spanLength, span.length * 2));
    }
  }

  private boolean consumed() {
    buffer.recycle();
    buffer = null;
    return false;
  }

  /**
   * The bytes received but not yet turned into records — a partly received record and the rest of
   * the current buffer — starting at a record boundary. They are in-flight data of an unaligned
   * checkpoint; this deserializer is left unchanged.
   */
  public byte[] captureUnconsumed() {
    int partial = spanning ? (headerFilled < 4 ? headerFilled : 4 + spanFilled) : 0;
    int rest = buffer == null ? 0 : buffer.size() - position;
    byte[] out = new byte[partial + rest];
    if (spanning) {
      if (headerFilled < 4) {
        System.arraycopy(headerBytes, 0, out, 0, headerFilled);
      } else {
        int header = spanLength | (lastHasTimestamp ? TIMESTAMP_FLAG : 0);
        out[0] = (byte) (header >>> 24);
        out[1] = (byte) (header >>> 16);
        out[2] = (byte) (header >>> 8);
        out[3] = (byte) header;
        System.arraycopy(span, 0, out, 4, spanFilled);
      }
    }
    if (rest > 0) {
      System.arraycopy(buffer.memory(), position, out, partial, rest);
    }
    return out;
  }

  /** Drops any buffer and partial record, e.g. when the task is cancelled. */
  public void clear() {
    if (buffer != null) {
      buffer.recycle();
      buffer = null;
    }
    spanning = false;
    headerFilled = 0;
  }

  private static int readInt(byte[] b, int p) {
    return ((b[p] & 0xFF) << 24)
        | ((b[p + 1] & 0xFF) << 16)
        | ((b[p + 2] & 0xFF) << 8)
        | (b[p + 3] & 0xFF);
  }
}
