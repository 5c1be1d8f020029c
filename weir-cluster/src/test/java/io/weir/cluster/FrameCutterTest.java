package io.weir.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/** {@link FrameCutter} finds a point inside a frame however the stream is split into chunks. */
class FrameCutterTest {

  /** Frames with bodies of the given lengths, each a 4-byte length and then the body. */
  private static byte[] frames(int... bodies) {
    int total = 0;
    for (int b : bodies) {
      total += 4 + b;
    }
    ByteBuffer out = ByteBuffer.allocate(total);
    for (int b : bodies) {
      out.putInt(b);
      out.put(new byte[b]);
    }
    return out.array();
  }

  @Test
  void cutsTheFirstFrameLongerThanTheOffsetThatManyBytesIn() {
    byte[] stream = frames(3, 8, 100); // 7 bytes, 12 bytes, 104 bytes
    assertThat(new FrameCutter().follow(stream, 0, stream.length, 10)).isEqualTo(7 + 10);
    assertThat(new FrameCutter().follow(stream, 0, stream.length, 50)).isEqualTo(7 + 12 + 50);
    assertThat(new FrameCutter().follow(stream, 0, stream.length, 500)).isEqualTo(-1);
    assertThat(new FrameCutter().follow(stream, 0, stream.length, 0)).isEqualTo(-1);
  }

  @Test
  void followsFramesAcrossChunksOfAnySize() {
    byte[] stream = frames(0, 3, 8, 100, 2, 40);
    int into = 30; // the frame of 100: at 4 + 7 + 12 + 30
    for (int chunk = 1; chunk <= stream.length; chunk++) {
      FrameCutter cutter = new FrameCutter();
      int cutAt = -1;
      for (int off = 0; off < stream.length && cutAt < 0; off += chunk) {
        int len = Math.min(chunk, stream.length - off);
        int cut = cutter.follow(stream, off, len, into);
        if (cut >= 0) {
          cutAt = off + cut;
        }
      }
      assertThat(cutAt).as("chunks of %d", chunk).isEqualTo(4 + 7 + 12 + 30);
    }
  }

  @Test
  void withoutAnOffsetItOnlyFollows() {
    byte[] stream = frames(5, 5);
    FrameCutter cutter = new FrameCutter();
    assertThat(cutter.follow(stream, 0, 9, 0)).isEqualTo(-1); // the first frame
    assertThat(cutter.follow(stream, 9, 9, 6)).isEqualTo(6); // the second, armed now
  }
}
