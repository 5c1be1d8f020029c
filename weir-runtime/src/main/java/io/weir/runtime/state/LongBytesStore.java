package io.weir.runtime.state;

import io.weir.api.state.StateDescriptor;
import io.weir.api.typeutils.DataOutputView;
import io.weir.api.typeutils.TypeSerializer;
import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.Iterator;
import java.util.Map;
import java.util.function.BiConsumer;
import java.util.function.UnaryOperator;

/**
 * {@code Long} keys to {@code byte[]} values, the values copied into pages of bytes rather than
 * kept as objects: a {@link LongLongStore} maps each key to where its value lies (page and offset),
 * and a value is its length (an {@code int}) followed by its bytes. A read returns a copy; a write
 * copies the caller's array in, so that it dies young instead of living in the old generation until
 * its key is written again, and the garbage collector has a few arrays of bytes to keep instead of
 * an object per key (W3 in {@code BENCHMARKS.md}).
 *
 * <p>A write of a value as long as the one it replaces overwrites it in place, unless a snapshot
 * may still read it: everything written before the last {@link #copy()} is shared with the frozen
 * store a snapshot holds, so a write appends the new value after it instead (the frozen store reads
 * no further than what it indexes), until {@link #thaw()} says no snapshot holds it any longer.
 * Values written elsewhere leave their old bytes dead; when the dead bytes outweigh the live ones
 * the store compacts into new pages, which no snapshot shares. Pages start small, so that a key
 * group of a few entries takes a few hundred bytes, and double up to {@link #SMALL_PAGE}: regions
 * of the state's {@link PageArena}, which the key groups share. A large key group adds pages of
 * {@link #LARGE_PAGE} of its own; a value larger than the page it would go to gets a page of its
 * own. Task thread only; a frozen store is only read.
 */
final class LongBytesStore implements KeyGroupStore<Long, byte[]> {

  private static final VarHandle INT =
      MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.nativeOrder());

  /** Offsets within a page take this many bits of a value's reference; the page index the rest. */
  private static final int OFFSET_BITS = 21;

  private static final int FIRST_PAGE = 256;

  /** Pages double from FIRST_PAGE up to this size: a small object for any collector. */
  static final int SMALL_PAGE = 256 << 10;

  /** A key group that holds this much in pages takes its further pages at {@link #LARGE_PAGE}. */
  private static final long LARGE_FROM = 1 << 20;

  /**
   * Just under 2 MiB with its header: in G1 one whole region of 2 MiB, or two of 1 MiB, allocated
   * outside the young generation and never copied by a collection (a humongous object), or a
   * regular object when regions are larger. Smaller pages of a large key group would be copied by
   * every young collection they live through (W3 in {@code BENCHMARKS.md}).
   */
  static final int LARGE_PAGE = (1 << OFFSET_BITS) - 32;

  private static final long NONE = -1;

  /**
   * Dead bytes are compacted away once they outweigh the live ones and are at least this many, or
   * once nothing is live.
   */
  private static final long MIN_DEAD_TO_COMPACT = 32 << 10;

  private final PageArena arena;
  private LongLongStore index;

  /**
   * The arrays this key group's values lie in: its own (large pages, and pages of one large value)
   * and chunks of the arena, shared with other key groups, of which it reads only its own regions.
   */
  private byte[][] pages;

  private int pageCount;

  /** Where the next value goes in the last page, and where the region reserved there ends. */
  private int tail;

  private int limit;

  /** The length of the last small region taken, which the next one doubles. */
  private int lastRegion = FIRST_PAGE / 2;

  /** Bytes of values in use, and bytes written in all (each value with its 4-byte length). */
  private long liveBytes;

  private long usedBytes;

  /** The bytes of all pages, used or not. */
  private long pageBytes;

  /** References below this one point into pages a snapshot may read; NONE when none does. */
  private long sharedBelow = NONE;

  /** A store with an arena of its own. */
  LongBytesStore() {
    this(new PageArena());
  }

  /**
   * @param arena where the store takes its small pages, shared with the state's other key groups
   */
  LongBytesStore(PageArena arena) {
    this.arena = arena;
    index = new LongLongStore();
    pages = new byte[4][];
  }

  private LongBytesStore(LongBytesStore other) {
    arena = other.arena;
    index = other.index.copy();
    pages = other.pages.clone();
    pageCount = other.pageCount;
    tail = other.tail;
    limit = other.limit;
    lastRegion = other.lastRegion;
    liveBytes = other.liveBytes;
    usedBytes = other.usedBytes;
    pageBytes = other.pageBytes;
    sharedBelow = other.end();
  }

  private static long reference(int page, int offset) {
    return (long) page << OFFSET_BITS | offset;
  }

  private static int pageOf(long reference) {
    return (int) (reference >>> OFFSET_BITS);
  }

  private static int offsetOf(long reference) {
    return (int) reference & ((1 << OFFSET_BITS) - 1);
  }

  /** The length of the value whose 4-byte header is at {@code offset}. */
  private static int lengthAt(byte[] page, int offset) {
    return (int) INT.get(page, offset);
  }

  /**
   * Above the reference of every value written so far, and no higher than those of the values
   * appended from now on.
   */
  private long end() {
    return pageCount == 0
        ? 0
        : ((long) (pageCount - 1) << OFFSET_BITS) + Math.min(tail, LARGE_PAGE);
  }

  @Override
  public byte[] get(Long key) {
    long ref = index.get(key, NONE);
    return ref == NONE ? null : read(pages, ref);
  }

  private static byte[] read(byte[][] pages, long ref) {
    byte[] page = pages[pageOf(ref)];
    int offset = offsetOf(ref);
    int length = lengthAt(page, offset);
    return Arrays.copyOfRange(page, offset + Integer.BYTES, offset + Integer.BYTES + length);
  }

  @Override
  public void put(Long boxedKey, byte[] value) {
    long key = boxedKey;
    long ref = index.get(key, NONE);
    if (ref != NONE) {
      byte[] page = pages[pageOf(ref)];
      int offset = offsetOf(ref);
      int length = lengthAt(page, offset);
      if (length == value.length && ref >= sharedBelow) {
        System.arraycopy(value, 0, page, offset + Integer.BYTES, length);
        return;
      }
      liveBytes -= Integer.BYTES + length;
    }
    index.put(key, append(value));
    liveBytes += Integer.BYTES + value.length;
    compactIfMostlyDead();
  }

  /** Copies {@code value} after the last one written; returns its reference. */
  private long append(byte[] value) {
    long ref = reserve(Integer.BYTES + value.length);
    byte[] page = pages[pageCount - 1];
    int offset = offsetOf(ref);
    INT.set(page, offset, value.length);
    System.arraycopy(value, 0, page, offset + Integer.BYTES, value.length);
    return ref;
  }

  /**
   * Makes room for {@code size} bytes after the last ones written, in the last page; returns where.
   */
  private long reserve(int size) {
    if (pageCount == 0 || tail + size > limit) {
      addPage(size);
    }
    long ref = reference(pageCount - 1, tail);
    tail += size;
    usedBytes += size;
    return ref;
  }

  /**
   * Opens a region for a value of {@code size} bytes: twice the last small one, out of the arena,
   * or a large page of its own once the key group holds {@link #LARGE_FROM}; a page of the value's
   * own size if it is larger than that.
   */
  private void addPage(int size) {
    int length =
        Math.max(size, pageBytes >= LARGE_FROM ? LARGE_PAGE : Math.min(2 * lastRegion, SMALL_PAGE));
    byte[] array;
    int start;
    if (length <= SMALL_PAGE) {
      array = arena.carve(length);
      start = arena.lastStart();
      lastRegion = length;
    } else {
      array = new byte[length];
      start = 0;
    }
    if (pageCount == 0 || pages[pageCount - 1] != array) {
      if (pageCount == pages.length) {
        pages = Arrays.copyOf(pages, 2 * pages.length);
      }
      pages[pageCount++] = array;
    }
    pageBytes += length;
    tail = start;
    limit = start + length;
  }

  @Override
  public void remove(Long boxedKey) {
    long key = boxedKey;
    long ref = index.get(key, NONE);
    if (ref != NONE) {
      liveBytes -= Integer.BYTES + lengthAt(pages[pageOf(ref)], offsetOf(ref));
      index.remove(key);
      compactIfMostlyDead();
    }
  }

  private void compactIfMostlyDead() {
    long dead = usedBytes - liveBytes;
    if (dead > liveBytes && (dead >= MIN_DEAD_TO_COMPACT || liveBytes == 0)) {
      compact();
    }
  }

  /** Rewrites the live values into new pages, which no snapshot shares. */
  private void compact() {
    LongLongStore oldIndex = index;
    byte[][] oldPages = pages;
    index = new LongLongStore();
    pages = new byte[4][];
    pageCount = 0;
    tail = 0;
    limit = 0;
    lastRegion = FIRST_PAGE / 2;
    usedBytes = 0;
    pageBytes = 0;
    sharedBelow = NONE;
    oldIndex.forEachPair(
        (key, ref) -> {
          byte[] page = oldPages[pageOf(ref)];
          int offset = offsetOf(ref);
          int length = lengthAt(page, offset);
          long moved = reserve(Integer.BYTES + length);
          System.arraycopy(
              page, offset, pages[pageCount - 1], offsetOf(moved), Integer.BYTES + length);
          index.put(key, moved);
        });
  }

  /** No snapshot holds what this store shares with the one it was copied from any longer. */
  @Override
  public void thaw() {
    sharedBelow = NONE;
  }

  @Override
  public int size() {
    return index.size();
  }

  @Override
  public void forEach(BiConsumer<? super Long, ? super byte[]> action) {
    byte[][] p = pages;
    index.forEachPair((key, ref) -> action.accept(key, read(p, ref)));
  }

  /**
   * Writes each value straight from its page, with no object per entry, in the formats of the
   * {@code Long} and {@code byte[]} serializers this layout is chosen for (a long key, an int
   * length before the bytes); through the serializers themselves if others are given (a restored
   * state registered with a serializer of its own).
   */
  @Override
  public void writeEntries(
      TypeSerializer<Long> keys, TypeSerializer<byte[]> values, DataOutputView out)
      throws IOException {
    if (Layout.of(StateDescriptor.Kind.VALUE, keys, values) != Layout.LONG_KEYS_BYTES_VALUES) {
      KeyGroupStore.super.writeEntries(keys, values, out);
      return;
    }
    out.writeInt(size());
    byte[][] p = pages;
    index.<IOException>forEachPair(
        (key, ref) -> {
          byte[] page = p[pageOf(ref)];
          int offset = offsetOf(ref);
          int length = lengthAt(page, offset);
          out.writeLong(key);
          out.writeInt(length);
          out.write(page, offset + Integer.BYTES, length);
        });
  }

  @Override
  public LongBytesStore copy() {
    return new LongBytesStore(this);
  }

  /** A read returns a copy already: nothing to copy. */
  @Override
  public void copyValues(UnaryOperator<byte[]> copier) {}

  @Override
  public Iterator<Map.Entry<Long, byte[]>> iterator() {
    Iterator<Map.Entry<Long, Long>> refs = index.iterator();
    byte[][] p = pages;
    return new Iterator<>() {
      @Override
      public boolean hasNext() {
        return refs.hasNext();
      }

      @Override
      public Map.Entry<Long, byte[]> next() {
        Map.Entry<Long, Long> e = refs.next();
        return Map.entry(e.getKey(), read(p, e.getValue()));
      }
    };
  }

  /** Pages held, and bytes written to them (live and dead); for tests. */
  int pageCount() {
    return pageCount;
  }

  long usedBytes() {
    return usedBytes;
  }

  byte[] pageAt(int i) {
    return pages[i];
  }
}
