package io.weir.runtime.network;

import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * The buffers of one record writer. Buffers are created on demand and recycled by consumers;
 * channel credits bound how many are in flight, so the pool never grows past (credits + 2) per
 * channel, with the most credits a channel ever had ({@link CreditDepth}), and steady-state
 * processing allocates nothing.
 */
public final class BufferPool {

  private final int bufferSize;
  private final ConcurrentLinkedQueue<Buffer> free = new ConcurrentLinkedQueue<>();
  private volatile int created;

  public BufferPool(int bufferSize) {
    if (bufferSize < 64) {
      throw new IllegalArgumentException("Network buffers must hold at least 64 bytes");
    }
    this.bufferSize = bufferSize;
  }

  public Buffer request() {
    Buffer b = free.poll();
    if (b != null) {
      return b;
    }
    created++; // producer thread only
    return new Buffer(new byte[bufferSize], this);
  }

  void recycle(Buffer buffer) {
    free.offer(buffer);
  }

  /** Buffers ever allocated: the memory this writer holds. */
  public int buffersCreated() {
    return created;
  }

  public int bufferSize() {
    return bufferSize;
  }
}
