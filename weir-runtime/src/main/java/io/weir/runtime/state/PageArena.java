package io.weir.runtime.state;

/**
 * Where the key groups of one {@link LongBytesStore} state take their small pages: regions carved
 * one after another out of shared chunks of {@link LongBytesStore#LARGE_PAGE} bytes, which G1
 * allocates outside the young generation (humongous objects) and never copies. A key group's first
 * pages would otherwise be small objects that every young collection copies while the state is
 * first written, and G1 answers that copying by growing the heap (W3 in {@code BENCHMARKS.md});
 * shared, they cost no more than one partly used chunk per state. A region is never handed out
 * twice; a chunk is garbage once no store (nor snapshot) holds a region of it. Task thread only.
 */
final class PageArena {

  private byte[] chunk;
  private int next;
  private int lastStart;

  /**
   * A region of {@code length} bytes, at most a chunk: returns the chunk it lies in, and {@link
   * #lastStart()} says where in it the region begins. A region that does not fit in what is left of
   * the current chunk opens a new one; the rest of the old one stays unused.
   */
  byte[] carve(int length) {
    if (chunk == null || next + length > chunk.length) {
      chunk = new byte[LongBytesStore.LARGE_PAGE];
      next = 0;
    }
    lastStart = next;
    next += length;
    return chunk;
  }

  /** Where the region {@link #carve} returned last begins. */
  int lastStart() {
    return lastStart;
  }
}
