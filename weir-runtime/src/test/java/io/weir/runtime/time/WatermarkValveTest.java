package io.weir.runtime.time;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The task's event time over its input channels, driven by hand. */
class WatermarkValveTest {

  private final List<String> out = new ArrayList<>();
  private final WatermarkValve.Output output =
      new WatermarkValve.Output() {
        @Override
        public void emitWatermark(long watermark) {
          out.add("wm " + watermark);
        }

        @Override
        public void emitWatermarkStatus(boolean idle) {
          out.add(idle ? "idle" : "active");
        }
      };

  @Test
  void theWatermarkIsTheMinimumOverTheChannels() {
    WatermarkValve valve = new WatermarkValve(3, output);
    valve.inputWatermark(0, 10);
    valve.inputWatermark(1, 5);
    assertThat(out).isEmpty(); // channel 2 has no watermark yet
    valve.inputWatermark(2, 7);
    valve.inputWatermark(1, 20);
    valve.inputWatermark(2, 30);
    valve.inputWatermark(0, 8); // going back on a channel is ignored
    assertThat(out).containsExactly("wm 5", "wm 7", "wm 10");
    assertThat(valve.currentWatermark()).isEqualTo(10);
  }

  @Test
  void anIdleChannelDoesNotHoldEventTimeBack() {
    WatermarkValve valve = new WatermarkValve(2, output);
    valve.inputWatermark(0, 100);
    valve.inputWatermark(1, 40);
    valve.inputStatus(1, true); // channel 1 idles at 40
    valve.inputWatermark(0, 150);
    assertThat(out).containsExactly("wm 40", "wm 100", "wm 150");
  }

  @Test
  void aChannelThatBecomesActiveCountsOnlyOnceItCaughtUp() {
    WatermarkValve valve = new WatermarkValve(2, output);
    valve.inputWatermark(0, 100);
    valve.inputWatermark(1, 40);
    valve.inputStatus(1, true);
    valve.inputStatus(1, false);
    valve.inputWatermark(1, 60); // behind the output (100): does not count yet
    valve.inputWatermark(0, 130);
    valve.inputWatermark(1, 140); // caught up: counts again
    valve.inputWatermark(0, 200); // held back by channel 1
    assertThat(out).containsExactly("wm 40", "wm 100", "wm 130", "wm 140");
  }

  @Test
  void whenEveryChannelIsIdleTheTaskIsIdleAtTheFurthestWatermark() {
    WatermarkValve valve = new WatermarkValve(2, output);
    valve.inputWatermark(0, 10);
    valve.inputWatermark(1, 30);
    valve.inputStatus(0, true);
    valve.inputStatus(1, true);
    valve.inputStatus(0, false);
    assertThat(out).containsExactly("wm 10", "wm 30", "idle", "active");
    assertThat(valve.isIdle()).isFalse();
  }

  @Test
  void anEndedChannelLetsTheOthersDecideAndAllEndedIsTheEndOfTime() {
    WatermarkValve valve = new WatermarkValve(2, output);
    valve.inputWatermark(0, 10);
    valve.inputEnded(1);
    valve.inputWatermark(0, 20);
    valve.inputEnded(0);
    assertThat(out).containsExactly("wm 10", "wm 20", "wm " + Long.MAX_VALUE);
  }

  @Test
  void watermarksOfAnIdleChannelAreIgnored() {
    WatermarkValve valve = new WatermarkValve(2, output);
    valve.inputWatermark(0, 10);
    valve.inputStatus(1, true);
    valve.inputWatermark(1, 5);
    valve.inputWatermark(0, 11);
    assertThat(out).containsExactly("wm 10", "wm 11");
  }

  @Test
  void aRestoredValveContinuesExactlyWhereItsPositionsWere() {
    WatermarkValve valve = new WatermarkValve(3, output);
    valve.inputWatermark(0, 100);
    valve.inputWatermark(1, 40);
    valve.inputWatermark(2, 70);
    valve.inputStatus(1, true); // idle: the task moves to 70
    valve.inputStatus(1, false); // active again behind the task: does not count yet
    WatermarkValve.Position[] cut = new WatermarkValve.Position[3];
    for (int c = 0; c < 3; c++) {
      cut[c] = valve.position(c);
    }
    assertThat(cut[1].aligned()).isFalse();
    assertThat(cut[0].taskWatermark()).isEqualTo(70);

    List<String> before = new ArrayList<>(out);
    out.clear();
    WatermarkValve restored = new WatermarkValve(3, output);
    restored.restore(cut);
    assertThat(out).as("the task's watermark first, before any input").containsExactly("wm 70");
    assertThat(before).endsWith("wm 70");

    // The same input now moves both the same way.
    out.clear();
    valve.inputWatermark(1, 65); // still behind: nothing
    valve.inputWatermark(2, 120); // channel 1 does not count: the minimum of 0 and 2 is 100
    valve.inputWatermark(1, 90); // still behind the task's 100
    List<String> original = new ArrayList<>(out);
    out.clear();
    restored.inputWatermark(1, 65);
    restored.inputWatermark(2, 120);
    restored.inputWatermark(1, 90);
    assertThat(out).isEqualTo(original).containsExactly("wm 100");
  }

  @Test
  void aRestoredIdleTaskIsIdleAgain() {
    WatermarkValve valve = new WatermarkValve(2, output);
    valve.inputWatermark(0, 10);
    valve.inputWatermark(1, 20);
    valve.inputStatus(0, true);
    valve.inputStatus(1, true);
    WatermarkValve.Position[] cut = {valve.position(0), valve.position(1)};
    out.clear();
    WatermarkValve restored = new WatermarkValve(2, output);
    restored.restore(cut);
    assertThat(out).containsExactly("wm 20", "idle");
    assertThat(restored.isIdle()).isTrue();
    assertThat(restored.currentWatermark()).isEqualTo(20);
  }

  @Test
  void eventTimeIsRestoredBeforeAnyInputOnly() {
    WatermarkValve valve = new WatermarkValve(1, output);
    WatermarkValve.Position[] cut = {valve.position(0)};
    valve.inputWatermark(0, 5);
    assertThatThrownBy(() -> valve.restore(cut))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("before any input");
    assertThatThrownBy(() -> new WatermarkValve(2, output).restore(cut))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("1 channels")
        .hasMessageContaining("with 2");
  }
}
