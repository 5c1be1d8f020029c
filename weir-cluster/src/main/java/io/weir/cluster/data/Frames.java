package io.weir.cluster.data;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.weir.runtime.network.ChannelEvent;
import java.nio.charset.StandardCharsets;

/**
 * The frames of the data plane. Every frame is a 4-byte length, a 1-byte type and the type's
 * fields; a connection starts with {@link #HELLO} from the consumer's side. Buffers travel as the
 * same bytes as in local channels, events in a small fixed encoding (no Java serialization).
 *
 * <p>Consumer to producer: {@code HELLO magic version secret}, {@code REQUEST stream channel
 * credits}, {@code CREDIT stream n}, {@code DEPTH stream delta}, {@code DELIVERED stream
 * checkpoint}, {@code CONVERTED stream checkpoint}, {@code RELEASE stream}, {@code PING}. Producer
 * to consumer: {@code BUFFER stream bytes}, {@code EVENT stream kind event}, {@code CONVERT stream
 * checkpoint}, {@code PONG} (the answer to each {@code PING}, see {@link ConnectionLiveness}).
 */
final class Frames {

  static final int MAGIC = 0x57454952; // "WEIR"
  // 2: a barrier carries its target location; 3: DEPTH; 4: PING; 5: a barrier says full checkpoint
  static final int VERSION = 5;

  /** Frames larger than this are refused (garbage on the port is closed, not buffered). */
  static final int MAX_FRAME = 16 << 20;

  static final byte HELLO = 1;
  static final byte REQUEST = 2;
  static final byte CREDIT = 3;
  static final byte DELIVERED = 4;
  static final byte CONVERTED = 5;
  static final byte RELEASE = 6;
  static final byte DEPTH = 7;
  static final byte PING = 8;
  static final byte BUFFER = 10;
  static final byte EVENT = 11;
  static final byte CONVERT = 12;
  static final byte PONG = 13;

  /** How an event enters the consumer's queue. */
  static final byte IN_ORDER = 0;

  static final byte PRIORITY = 1;
  static final byte CONVERTIBLE = 2;

  private static final byte END_OF_PARTITION = 1;
  private static final byte END_OF_DATA = 2;
  private static final byte BARRIER = 3;
  private static final byte CANCEL_MARKER = 4;
  private static final byte WATERMARK = 5;
  private static final byte WATERMARK_STATUS = 6;

  private Frames() {}

  static ByteBuf header(ByteBufAllocator alloc, byte type, int bodyLength, int capacity) {
    ByteBuf b = alloc.buffer(5 + capacity);
    b.writeInt(1 + bodyLength);
    b.writeByte(type);
    return b;
  }

  /** A frame of its type alone: {@code PING}, {@code PONG}. */
  static ByteBuf bare(ByteBufAllocator alloc, byte type) {
    return header(alloc, type, 0, 0);
  }

  static ByteBuf hello(ByteBufAllocator alloc, String secret) {
    byte[] s = (secret == null ? "" : secret).getBytes(StandardCharsets.UTF_8);
    ByteBuf b = header(alloc, HELLO, 12 + s.length, 12 + s.length);
    b.writeInt(MAGIC).writeInt(VERSION).writeInt(s.length).writeBytes(s);
    return b;
  }

  static ByteBuf request(ByteBufAllocator alloc, int stream, String channel, int credits) {
    byte[] c = channel.getBytes(StandardCharsets.UTF_8);
    ByteBuf b = header(alloc, REQUEST, 12 + c.length, 12 + c.length);
    b.writeInt(stream).writeInt(c.length).writeBytes(c).writeInt(credits);
    return b;
  }

  static ByteBuf streamInt(ByteBufAllocator alloc, byte type, int stream, int value) {
    ByteBuf b = header(alloc, type, 8, 8);
    b.writeInt(stream).writeInt(value);
    return b;
  }

  static ByteBuf streamLong(ByteBufAllocator alloc, byte type, int stream, long value) {
    ByteBuf b = header(alloc, type, 12, 12);
    b.writeInt(stream).writeLong(value);
    return b;
  }

  static ByteBuf release(ByteBufAllocator alloc, int stream) {
    ByteBuf b = header(alloc, RELEASE, 4, 4);
    b.writeInt(stream);
    return b;
  }

  /**
   * A buffer frame in one direct buffer: the header, then a copy of the buffer's bytes (the copy a
   * socket write of heap memory would make anyway), so the caller may recycle the buffer at once.
   */
  static ByteBuf buffer(ByteBufAllocator alloc, int stream, byte[] memory, int size) {
    ByteBuf frame = alloc.directBuffer(9 + size);
    frame.writeInt(5 + size).writeByte(BUFFER).writeInt(stream).writeBytes(memory, 0, size);
    return frame;
  }

  static ByteBuf event(ByteBufAllocator alloc, int stream, byte kind, ChannelEvent event) {
    ByteBuf body = alloc.buffer(32);
    writeEvent(body, event);
    ByteBuf b = header(alloc, EVENT, 5 + body.readableBytes(), 5 + body.readableBytes());
    b.writeInt(stream).writeByte(kind).writeBytes(body);
    body.release();
    return b;
  }

  static void writeEvent(ByteBuf out, ChannelEvent event) {
    if (event instanceof ChannelEvent.EndOfPartition) {
      out.writeByte(END_OF_PARTITION);
    } else if (event instanceof ChannelEvent.EndOfData) {
      out.writeByte(END_OF_DATA);
    } else if (event instanceof ChannelEvent.CheckpointBarrier b) {
      out.writeByte(BARRIER)
          .writeLong(b.checkpointId())
          .writeLong(b.timestamp())
          .writeBoolean(b.savepoint())
          .writeBoolean(b.unaligned());
      writeNullableString(out, b.targetLocation());
      out.writeBoolean(b.fullCheckpoint());
    } else if (event instanceof ChannelEvent.CancelCheckpointMarker m) {
      out.writeByte(CANCEL_MARKER).writeLong(m.checkpointId());
    } else if (event instanceof ChannelEvent.Watermark w) {
      out.writeByte(WATERMARK).writeLong(w.timestamp());
    } else if (event instanceof ChannelEvent.WatermarkStatus s) {
      out.writeByte(WATERMARK_STATUS).writeBoolean(s.idle());
    } else {
      throw new IllegalArgumentException("No wire form for the event " + event);
    }
  }

  static ChannelEvent readEvent(ByteBuf in) {
    byte tag = in.readByte();
    return switch (tag) {
      case END_OF_PARTITION -> ChannelEvent.EndOfPartition.INSTANCE;
      case END_OF_DATA -> ChannelEvent.EndOfData.INSTANCE;
      case BARRIER ->
          new ChannelEvent.CheckpointBarrier(
              in.readLong(),
              in.readLong(),
              in.readBoolean(),
              in.readBoolean(),
              readNullableString(in, MAX_LOCATION_BYTES),
              in.readBoolean());
      case CANCEL_MARKER -> new ChannelEvent.CancelCheckpointMarker(in.readLong());
      case WATERMARK -> new ChannelEvent.Watermark(in.readLong());
      case WATERMARK_STATUS ->
          in.readBoolean()
              ? ChannelEvent.WatermarkStatus.IDLE
              : ChannelEvent.WatermarkStatus.ACTIVE;
      default -> throw new IllegalArgumentException("Unknown event tag " + tag + " on the wire");
    };
  }

  /** The longest target location (a savepoint directory's URI) a barrier carries. */
  private static final int MAX_LOCATION_BYTES = 64 * 1024;

  private static void writeNullableString(ByteBuf out, String s) {
    if (s == null) {
      out.writeInt(-1);
      return;
    }
    byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
    out.writeInt(bytes.length).writeBytes(bytes);
  }

  private static String readNullableString(ByteBuf in, int maxLength) {
    if (in.getInt(in.readerIndex()) == -1) {
      in.skipBytes(4);
      return null;
    }
    return readString(in, maxLength);
  }

  static String readString(ByteBuf in, int maxLength) {
    int length = in.readInt();
    if (length < 0 || length > maxLength || length > in.readableBytes()) {
      throw new IllegalArgumentException("A string of " + length + " bytes does not fit the frame");
    }
    return in.readCharSequence(length, StandardCharsets.UTF_8).toString();
  }
}
