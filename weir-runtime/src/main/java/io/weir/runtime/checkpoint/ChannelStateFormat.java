package io.weir.runtime.checkpoint;

import io.weir.api.typeutils.DataInputDeserializer;
import io.weir.api.typeutils.DataOutputSerializer;
import io.weir.runtime.network.ChannelEvent;
import io.weir.runtime.network.ChannelStateEntry;
import io.weir.runtime.time.WatermarkValve;
import java.io.IOException;
import java.util.List;

/**
 * How the {@link ChannelStateEntry entries} of a channel's in-flight data are framed in a stream of
 * checkpoint storage (see {@link ChannelStateHandle}). A buffer is {@code length:int} and that many
 * bytes, as it always was; an event has a negative tag in place of the length, which no buffer has,
 * so that checkpoints written before events were kept read the same:
 *
 * <ul>
 *   <li>{@code -1 timestamp:long}: a watermark;
 *   <li>{@code -2 idle:byte}: a watermark status;
 *   <li>{@code -3 watermark:long flags:byte taskWatermark:long}: the event time at the cut, flags
 *       bit 0 the channel idle, bit 1 the channel aligned, bit 2 the task idle.
 * </ul>
 */
final class ChannelStateFormat {

  private static final int WATERMARK = -1;
  private static final int WATERMARK_STATUS = -2;
  private static final int CUT = -3;

  private ChannelStateFormat() {}

  /** Writes {@code entries} in order; returns where each starts. */
  static long[] write(DataOutputSerializer out, List<ChannelStateEntry> entries) {
    long[] offsets = new long[entries.size()];
    for (int i = 0; i < entries.size(); i++) {
      offsets[i] = out.length();
      write(out, entries.get(i));
    }
    return offsets;
  }

  private static void write(DataOutputSerializer out, ChannelStateEntry entry) {
    if (entry instanceof ChannelStateEntry.Bytes bytes) {
      out.writeInt(bytes.bytes().length);
      out.write(bytes.bytes());
    } else if (entry instanceof ChannelStateEntry.Event event) {
      if (event.event() instanceof ChannelEvent.Watermark watermark) {
        out.writeInt(WATERMARK);
        out.writeLong(watermark.timestamp());
      } else {
        out.writeInt(WATERMARK_STATUS);
        out.writeBoolean(((ChannelEvent.WatermarkStatus) event.event()).idle());
      }
    } else {
      WatermarkValve.Position p = ((ChannelStateEntry.Cut) entry).position();
      out.writeInt(CUT);
      out.writeLong(p.watermark());
      out.writeByte((p.idle() ? 1 : 0) | (p.aligned() ? 2 : 0) | (p.taskIdle() ? 4 : 0));
      out.writeLong(p.taskWatermark());
    }
  }

  /** Reads the entry at the reader's position. */
  static ChannelStateEntry read(DataInputDeserializer in) throws IOException {
    int tag = in.readInt();
    if (tag >= 0) {
      byte[] bytes = new byte[tag];
      in.readFully(bytes);
      return new ChannelStateEntry.Bytes(bytes);
    }
    switch (tag) {
      case WATERMARK:
        return new ChannelStateEntry.Event(new ChannelEvent.Watermark(in.readLong()));
      case WATERMARK_STATUS:
        return new ChannelStateEntry.Event(
            in.readBoolean()
                ? ChannelEvent.WatermarkStatus.IDLE
                : ChannelEvent.WatermarkStatus.ACTIVE);
      case CUT:
        long watermark = in.readLong();
        int flags = in.readByte();
        long taskWatermark = in.readLong();
        return new ChannelStateEntry.Cut(
            new WatermarkValve.Position(
                watermark, (flags & 1) != 0, (flags & 2) != 0, taskWatermark, (flags & 4) != 0));
      default:
        throw new IOException(
            "unknown entry of in-flight data (tag "
                + tag
                + "): the checkpoint was written by a newer Weir, or the file is corrupt");
    }
  }
}
