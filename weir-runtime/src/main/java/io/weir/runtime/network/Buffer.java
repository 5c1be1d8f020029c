package io.weir.runtime.network;

/**
 * A fixed-size segment of serialized records travelling from one task to another. The producer
 * fills it, hands it to a channel, and the consumer gives it back with {@link #recycle()} once it
 * has read every record in it.
 */
public final class Buffer {

  private final byte[] memory;
  private final BufferPool pool;
  private int size;

  Buffer(byte[] memory, BufferPool pool) {
    this.memory = memory;
    this.pool = pool;
  }

  /** A buffer holding a copy of {@code bytes}, not pooled; for restored channel state. */
  public static Buffer wrap(byte[] bytes) {
    Buffer b = new Buffer(bytes, null);
    b.size = bytes.length;
    return b;
  }

  public byte[] memory() {
    return memory;
  }

  /** Number of valid bytes, from index 0. */
  public int size() {
    return size;
  }

  void setSize(int size) {
    this.size = size;
  }

  public int capacity() {
    return memory.length;
  }

  /** A copy of the valid bytes, e.g. to persist in-flight data. */
  public byte[] copyOfContent() {
    return java.util.Arrays.copyOf(memory, size);
  }

  /** Returns the buffer to its producer's pool; the caller must not touch it afterwards. */
  public void recycle() {
    size = 0;
    if (pool != null) {
      pool.recycle(this);
    }
  }
}
