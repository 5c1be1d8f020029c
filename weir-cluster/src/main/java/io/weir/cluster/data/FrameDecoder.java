package io.weir.cluster.data;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.CorruptedFrameException;
import io.weir.runtime.network.Buffer;
import io.weir.runtime.network.InputChannel;
import java.util.function.IntFunction;

/**
 * Splits a data connection's bytes into {@link Frames} without gathering a frame before it is
 * handled. The body of a {@code BUFFER} frame is copied from each read of the socket straight into
 * a receive buffer of its input channel, so its bytes are copied once on the way in, where a
 * cumulating frame decoder copies every byte into its cumulation first and then again into the
 * channel's buffer. Every other frame is a few bytes: it is gathered whole and passed on to the
 * next handler as its type byte and fields, as a length-field frame decoder would.
 *
 * <p>Without receivers (the producer's side of a connection, which never receives buffers), a
 * {@code BUFFER} frame is passed on whole like any other. A length outside 1 .. {@link
 * Frames#MAX_FRAME} is garbage on the port: the decoder raises it once and ignores what follows,
 * and the next handler closes the connection.
 */
final class FrameDecoder extends ChannelInboundHandlerAdapter {

  /** Length (4) and type (1). */
  private static final int HEAD = 5;

  /** A {@code BUFFER} frame's head and its stream number (4). */
  private static final int BUFFER_HEAD = HEAD + 4;

  /** The input channel of a stream, or null when nobody receives it any more (its bytes go). */
  private final IntFunction<InputChannel> receivers;

  private final ByteBuf head = Unpooled.buffer(BUFFER_HEAD, BUFFER_HEAD);

  /** The small frame being gathered: its type byte and fields. */
  private ByteBuf gathering;

  /** The buffer a BUFFER frame's body is copied into, its channel, its size and bytes so far. */
  private Buffer target;

  private InputChannel targetChannel;
  private int targetSize;
  private int filled;

  /** Bytes of a BUFFER frame for a stream nobody receives, still to skip. */
  private int skipping;

  private boolean corrupted;

  /** {@code receivers} null: buffers are passed on whole. */
  FrameDecoder(IntFunction<InputChannel> receivers) {
    this.receivers = receivers;
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    ByteBuf in = (ByteBuf) msg;
    try {
      while (in.isReadable() && !corrupted) {
        if (target != null) {
          fill(in);
        } else if (skipping > 0) {
          int n = Math.min(skipping, in.readableBytes());
          in.skipBytes(n);
          skipping -= n;
        } else if (gathering != null) {
          gathering.writeBytes(in, Math.min(gathering.writableBytes(), in.readableBytes()));
          passOnIfGathered(ctx);
        } else {
          readHead(ctx, in);
        }
      }
    } finally {
      in.release();
    }
  }

  private void fill(ByteBuf in) {
    int n = Math.min(targetSize - filled, in.readableBytes());
    in.readBytes(target.memory(), filled, n);
    filled += n;
    if (filled == targetSize) {
      Buffer done = target;
      target = null;
      targetChannel.enqueueReceived(done, targetSize);
      targetChannel = null;
    }
  }

  private void readHead(ChannelHandlerContext ctx, ByteBuf in) {
    int wanted = head.readableBytes() < HEAD || !receivesBuffers() ? HEAD : BUFFER_HEAD;
    head.writeBytes(in, Math.min(wanted - head.readableBytes(), in.readableBytes()));
    if (head.readableBytes() < wanted) {
      return;
    }
    int length = head.getInt(0);
    if (length < 1 || length > Frames.MAX_FRAME) {
      corrupted = true;
      throw new CorruptedFrameException(
          "a frame of "
              + length
              + " bytes on the data connection (at most "
              + Frames.MAX_FRAME
              + "): not a Weir data-plane peer, or a corrupted stream");
    }
    byte type = head.getByte(4);
    if (type == Frames.BUFFER && receivesBuffers()) {
      if (wanted == HEAD) {
        if (length < BUFFER_HEAD - 4) {
          corrupted = true;
          throw new CorruptedFrameException("a buffer frame of " + length + " bytes has no stream");
        }
        return; // the stream number next
      }
      startBuffer(head.getInt(HEAD), length - (BUFFER_HEAD - 4));
    } else {
      gathering = ctx.alloc().heapBuffer(length, length);
      gathering.writeByte(type);
      passOnIfGathered(ctx);
    }
    head.clear();
  }

  private void startBuffer(int stream, int size) {
    InputChannel channel = receivers.apply(stream);
    if (channel == null) {
      skipping = size;
      return;
    }
    Buffer buffer = channel.requestReceiveBuffer(size);
    if (size == 0) {
      channel.enqueueReceived(buffer, 0);
      return;
    }
    target = buffer;
    targetChannel = channel;
    targetSize = size;
    filled = 0;
  }

  private void passOnIfGathered(ChannelHandlerContext ctx) {
    if (!gathering.isWritable()) {
      ByteBuf frame = gathering;
      gathering = null;
      ctx.fireChannelRead(frame);
    }
  }

  private boolean receivesBuffers() {
    return receivers != null && head.readableBytes() >= HEAD && head.getByte(4) == Frames.BUFFER;
  }

  @Override
  public void handlerRemoved(ChannelHandlerContext ctx) {
    head.release();
    if (gathering != null) {
      gathering.release();
      gathering = null;
    }
    if (target != null) {
      target.recycle(); // a partly received buffer of a connection that broke
      target = null;
    }
  }
}
