package io.weir.cluster;

/**
 * Follows the frames of Weir's data plane (a 4-byte big-endian length, then that many bytes)
 * through the chunks of one direction of a connection, so that {@link FaultyProxy} can break the
 * connection in the middle of a frame rather than wherever a read happened to end. It must see
 * every byte of its direction from the connection's first. One pump thread uses it.
 */
final class FrameCutter {

  private static final int LENGTH_BYTES = 4;

  /** Bytes of the current frame seen so far, its length field included. */
  private long inFrame;

  /** The current frame's length, its length field included; -1 while that field is incomplete. */
  private long frameTotal = -1;

  private int length;

  /**
   * Follows {@code len} bytes of {@code chunk} from {@code off}. When {@code into} is positive,
   * returns how many of them go before the stream stands {@code into} bytes into a frame longer
   * than that (so a cut there leaves a frame half sent), and follows only those; otherwise, or when
   * no such point is in the chunk, follows them all and returns -1.
   */
  int follow(byte[] chunk, int off, int len, int into) {
    int i = 0;
    while (i < len) {
      if (frameTotal < 0) {
        length = (length << 8) | (chunk[off + i] & 0xff);
        i++;
        inFrame++;
        if (inFrame == LENGTH_BYTES) {
          frameTotal = LENGTH_BYTES + (length & 0xffffffffL);
        }
        continue;
      }
      if (into > LENGTH_BYTES && frameTotal > into && inFrame < into) {
        long toCut = into - inFrame;
        if (toCut <= len - i) {
          inFrame += toCut;
          return i + (int) toCut;
        }
      }
      long step = Math.min(len - i, frameTotal - inFrame);
      i += (int) step;
      inFrame += step;
      if (inFrame == frameTotal) {
        inFrame = 0;
        frameTotal = -1;
        length = 0;
      }
    }
    return -1;
  }
}
