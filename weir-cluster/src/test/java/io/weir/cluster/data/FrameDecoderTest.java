package io.weir.cluster.data;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.CorruptedFrameException;
import io.weir.runtime.network.Buffer;
import io.weir.runtime.network.InputChannel;
import io.weir.runtime.network.InputGate;
import io.weir.runtime.task.Waker;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The data plane's frame decoder, fed the same stream cut into reads of every size. */
class FrameDecoderTest {

  private static final int RECEIVED = 1;
  private static final int RELEASED = 2;

  private final Random random = new Random(42);
  private final byte[] small = bytes(1_000);
  private final byte[] full = bytes(32 * 1024);
  private final byte[] unwanted = bytes(5_000);

  @Test
  void buffersLandInTheirChannelAndOtherFramesPassOnWholeHoweverTheReadsAreCut() throws Exception {
    byte[] stream = stream();
    for (int read : new int[] {1, 2, 3, 4, 5, 7, 9, 13, 64, 4096, 40_000, stream.length}) {
      InputGate gate = new InputGate(new Waker(), 4);
      InputChannel channel = gate.addChannel(0, "producer");
      EmbeddedChannel connection =
          new EmbeddedChannel(new FrameDecoder(s -> s == RECEIVED ? channel : null));
      List<ByteBuf> inputs = new ArrayList<>();
      for (int at = 0; at < stream.length; at += read) {
        ByteBuf in = Unpooled.wrappedBuffer(stream, at, Math.min(read, stream.length - at));
        inputs.add(in);
        connection.writeInbound(in);
      }

      assertThat(inputs).allSatisfy(in -> assertThat(in.refCnt()).isZero());
      assertThat(passedOn(connection))
          .as("reads of %d bytes", read)
          .containsExactly(
              "3 " + hex(streamInt(RECEIVED, 7)),
              "11 " + hex(new byte[] {0, 0, 0, 1, 0, 9}),
              "6 " + hex(int4(RECEIVED)));
      assertThat(received(gate))
          .as("reads of %d bytes", read)
          .containsExactly(hex(small), hex(full), "");
      assertThat(connection.finish()).isFalse();
    }
  }

  @Test
  void withoutReceiversABufferFrameIsPassedOnLikeAnyOther() throws Exception {
    EmbeddedChannel connection = new EmbeddedChannel(new FrameDecoder(null));
    connection.writeInbound(Unpooled.wrappedBuffer(bufferFrame(RECEIVED, small)));

    byte[] body = new byte[4 + small.length];
    System.arraycopy(int4(RECEIVED), 0, body, 0, 4);
    System.arraycopy(small, 0, body, 4, small.length);
    assertThat(passedOn(connection)).containsExactly(Frames.BUFFER + " " + hex(body));
  }

  @Test
  void aLengthThatNoFrameHasIsRefusedOnceAndWhatFollowsIsIgnored() throws Exception {
    EmbeddedChannel connection = new EmbeddedChannel(new FrameDecoder(s -> null));
    ByteBuf garbage = Unpooled.wrappedBuffer("GET / HTTP/1.1\r\n\r\n".getBytes());
    assertThatThrownBy(() -> connection.writeInbound(garbage))
        .isInstanceOf(CorruptedFrameException.class)
        .hasMessageContaining("1195725856 bytes")
        .hasMessageContaining("not a Weir data-plane peer");

    ByteBuf after = Unpooled.wrappedBuffer(frame(Frames.CREDIT, streamInt(RECEIVED, 1)));
    connection.writeInbound(after);
    assertThat(garbage.refCnt()).isZero();
    assertThat(after.refCnt()).isZero();
    assertThat((Object) connection.readInbound()).isNull();
  }

  @Test
  void aBufferFrameTooShortToNameItsStreamIsRefused() throws Exception {
    EmbeddedChannel connection = new EmbeddedChannel(new FrameDecoder(s -> null));
    ByteBuf tooShort = Unpooled.wrappedBuffer(frame(Frames.BUFFER, new byte[] {0, 0}));
    assertThatThrownBy(() -> connection.writeInbound(tooShort))
        .isInstanceOf(CorruptedFrameException.class)
        .hasMessageContaining("a buffer frame of 3 bytes has no stream");
  }

  /**
   * A credit, a buffer, a buffer nobody receives, an event, a full buffer, a release, an empty one.
   */
  private byte[] stream() throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.write(frame(Frames.CREDIT, streamInt(RECEIVED, 7)));
    out.write(bufferFrame(RECEIVED, small));
    out.write(bufferFrame(RELEASED, unwanted));
    out.write(frame(Frames.EVENT, new byte[] {0, 0, 0, 1, 0, 9}));
    out.write(bufferFrame(RECEIVED, full));
    out.write(frame(Frames.RELEASE, int4(RECEIVED)));
    out.write(bufferFrame(RECEIVED, new byte[0]));
    return out.toByteArray();
  }

  private static byte[] bufferFrame(int stream, byte[] content) throws IOException {
    ByteArrayOutputStream body = new ByteArrayOutputStream();
    body.write(int4(stream));
    body.write(content);
    return frame(Frames.BUFFER, body.toByteArray());
  }

  private static byte[] frame(byte type, byte[] body) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    DataOutputStream out = new DataOutputStream(bytes);
    out.writeInt(1 + body.length);
    out.writeByte(type);
    out.write(body);
    return bytes.toByteArray();
  }

  private static byte[] streamInt(int stream, int value) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    DataOutputStream out = new DataOutputStream(bytes);
    out.writeInt(stream);
    out.writeInt(value);
    return bytes.toByteArray();
  }

  private static byte[] int4(int value) {
    return new byte[] {
      (byte) (value >>> 24), (byte) (value >>> 16), (byte) (value >>> 8), (byte) value
    };
  }

  /** The frames the next handler got, as their type and a hex dump of their fields. */
  private static List<String> passedOn(EmbeddedChannel connection) {
    List<String> frames = new ArrayList<>();
    ByteBuf frame;
    while ((frame = connection.readInbound()) != null) {
      byte type = frame.readByte();
      byte[] fields = new byte[frame.readableBytes()];
      frame.readBytes(fields);
      frame.release();
      frames.add(type + " " + hex(fields));
    }
    return frames;
  }

  private static List<String> received(InputGate gate) throws Exception {
    List<String> buffers = new ArrayList<>();
    InputGate.Polled polled;
    while ((polled = gate.pollNext()) != null) {
      Buffer b = (Buffer) polled.element();
      buffers.add(hex(Arrays.copyOf(b.memory(), b.size())));
      b.recycle();
    }
    return buffers;
  }

  private byte[] bytes(int n) {
    byte[] b = new byte[n];
    random.nextBytes(b);
    return b;
  }

  private static String hex(byte[] bytes) {
    return java.util.HexFormat.of().formatHex(bytes);
  }
}
