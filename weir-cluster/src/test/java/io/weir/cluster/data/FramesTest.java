package io.weir.cluster.data;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.weir.runtime.network.ChannelEvent;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Events cross the data plane unchanged. */
class FramesTest {

  @Test
  void everyKindOfBarrierCrossesUnchanged() {
    List<ChannelEvent.CheckpointBarrier> barriers =
        List.of(
            new ChannelEvent.CheckpointBarrier(1, 10, false, false, null, false),
            new ChannelEvent.CheckpointBarrier(2, 20, false, true, null, true),
            new ChannelEvent.CheckpointBarrier(3, 30, false, false, null, true),
            new ChannelEvent.CheckpointBarrier(4, 40, true, false, "file:///savepoints/sp-4"));
    for (ChannelEvent.CheckpointBarrier barrier : barriers) {
      ByteBuf wire = Unpooled.buffer();
      Frames.writeEvent(wire, barrier);

      assertThat(Frames.readEvent(wire)).isEqualTo(barrier);
      assertThat(wire.readableBytes()).isZero();
      wire.release();
    }
  }
}
