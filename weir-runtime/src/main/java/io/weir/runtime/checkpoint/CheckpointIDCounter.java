package io.weir.runtime.checkpoint;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Hands out increasing checkpoint ids for one job. In one process a counter in memory; with high
 * availability one on ZooKeeper, so that a new leader never reuses an id.
 */
public interface CheckpointIDCounter {

  /** The next id; each call returns a larger one. */
  long getAndIncrement();

  /** The last id handed out (0 when none was). */
  long get();

  /** A counter in memory whose first id is {@code lastId + 1}. */
  static CheckpointIDCounter inMemory(long lastId) {
    AtomicLong last = new AtomicLong(lastId);
    return new CheckpointIDCounter() {
      @Override
      public long getAndIncrement() {
        return last.incrementAndGet();
      }

      @Override
      public long get() {
        return last.get();
      }
    };
  }
}
