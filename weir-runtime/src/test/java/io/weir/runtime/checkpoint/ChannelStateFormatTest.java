package io.weir.runtime.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.weir.api.typeutils.DataInputDeserializer;
import io.weir.api.typeutils.DataOutputSerializer;
import io.weir.runtime.network.ChannelEvent;
import io.weir.runtime.network.ChannelStateEntry;
import io.weir.runtime.time.WatermarkValve;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The framing of in-flight data entries in checkpoint storage. */
class ChannelStateFormatTest {

  @Test
  void entriesOfEveryKindReadBackInOrder() throws IOException {
    List<ChannelStateEntry> entries =
        List.of(
            new ChannelStateEntry.Cut(new WatermarkValve.Position(40, true, false, 70, false)),
            new ChannelStateEntry.Bytes(new byte[] {1, 2, 3}),
            new ChannelStateEntry.Event(new ChannelEvent.Watermark(-5)),
            new ChannelStateEntry.Bytes(new byte[0]),
            new ChannelStateEntry.Event(ChannelEvent.WatermarkStatus.IDLE),
            new ChannelStateEntry.Event(ChannelEvent.WatermarkStatus.ACTIVE),
            new ChannelStateEntry.Cut(
                new WatermarkValve.Position(Long.MIN_VALUE, false, true, Long.MAX_VALUE, true)));
    DataOutputSerializer out = new DataOutputSerializer(64);
    out.writeInt(12345); // what precedes in a shared stream
    long[] offsets = ChannelStateFormat.write(out, entries);

    byte[] stream = out.getCopyOfBuffer();
    List<ChannelStateEntry> read = new ArrayList<>();
    DataInputDeserializer in = new DataInputDeserializer();
    for (long offset : offsets) {
      in.setBuffer(stream, (int) offset, stream.length - (int) offset);
      read.add(ChannelStateFormat.read(in));
    }
    assertThat(read).isEqualTo(entries);
  }

  @Test
  void aBufferWrittenBeforeEventsWereKeptReadsAsBytes() throws IOException {
    // The framing of checkpoints written before: length, bytes.
    DataOutputSerializer out = new DataOutputSerializer(16);
    out.writeInt(2);
    out.write(new byte[] {7, 8});
    DataInputDeserializer in = new DataInputDeserializer(out.getCopyOfBuffer());
    assertThat(ChannelStateFormat.read(in))
        .isEqualTo(new ChannelStateEntry.Bytes(new byte[] {7, 8}));
  }

  @Test
  void anUnknownTagNamesWhatIsWrong() {
    DataOutputSerializer out = new DataOutputSerializer(16);
    out.writeInt(-9);
    DataInputDeserializer in = new DataInputDeserializer(out.getCopyOfBuffer());
    assertThatThrownBy(() -> ChannelStateFormat.read(in))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("tag -9")
        .hasMessageContaining("newer Weir, or the file is corrupt");
  }

  @Test
  void onlyEventsOfEventTimeAreChannelState() {
    assertThatThrownBy(() -> new ChannelStateEntry.Event(ChannelEvent.EndOfData.INSTANCE))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
