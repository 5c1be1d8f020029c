package io.weir.runtime.task;

import static org.assertj.core.api.Assertions.assertThat;

import io.weir.api.eventtime.WatermarkStrategy;
import io.weir.api.source.ReaderOutput;
import io.weir.runtime.operators.Output;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A source subtask's event time: per split, combined, and restored. */
class SourceWatermarksTest {

  private final List<String> out = new ArrayList<>();
  private final Output<Long> chain =
      new Output<>() {
        @Override
        public void collect(Long record, long timestamp) {
          out.add(record + "@" + timestamp);
        }

        @Override
        public void emitWatermark(long watermark) {
          out.add("wm " + watermark);
        }

        @Override
        public void emitWatermarkStatus(boolean idle) {
          out.add(idle ? "idle" : "active");
        }
      };

  private SourceWatermarks<Long> watermarks(int subtask) {
    return new SourceWatermarks<>(
        WatermarkStrategy.<Long>forBoundedOutOfOrderness(Duration.ofMillis(10))
            .withTimestampAssigner((v, ts) -> v),
        chain,
        subtask,
        2);
  }

  @Test
  void theSubtaskWatermarkIsTheMinimumOverItsSplits() {
    SourceWatermarks<Long> w = watermarks(0);
    ReaderOutput<Long> a = w.output("a");
    ReaderOutput<Long> b = w.output("b");
    a.collect(100L);
    b.collect(50L);
    w.onPeriodicEmit();
    a.collect(200L);
    w.onPeriodicEmit();
    b.collect(80L);
    w.onPeriodicEmit();
    assertThat(out).containsExactly("100@100", "50@50", "wm 39", "200@200", "80@80", "wm 69");
  }

  @Test
  void aReleasedSplitNoLongerHoldsTheWatermarkBack() {
    SourceWatermarks<Long> w = watermarks(0);
    w.output("a").collect(100L);
    w.output("b").collect(50L);
    w.onPeriodicEmit();
    w.release("b");
    assertThat(out).containsExactly("100@100", "50@50", "wm 39", "wm 89");
  }

  @Test
  void aSubtaskWithoutSplitsIsIdleUntilItGetsOne() {
    SourceWatermarks<Long> w = watermarks(1);
    w.markIdleWithoutSplits();
    w.main().collect(30L);
    w.onPeriodicEmit();
    assertThat(out).containsExactly("idle", "active", "30@30", "wm 19");
  }

  @Test
  void splitWatermarksSurviveARestoreAndTheSubtaskReEmitsItsOwn() {
    SourceWatermarks<Long> before = watermarks(0);
    before.output("a").collect(100L);
    before.output("b").collect(300L);
    before.onPeriodicEmit();
    List<SourceWatermarks.Entry> checkpoint = before.snapshot();
    out.clear();

    SourceWatermarks<Long> after = watermarks(0);
    after.restore(checkpoint);
    ReaderOutput<Long> a = after.output("a");
    after.output("b");
    a.collect(60L); // the generator starts afresh, but the split's watermark does not go back
    after.onPeriodicEmit();
    a.collect(150L);
    after.onPeriodicEmit();
    assertThat(out).containsExactly("wm 89", "60@60", "150@150", "wm 139");
  }

  @Test
  void entriesOfOtherSubtasksOnlySeedTheirSplits() {
    SourceWatermarks<Long> before = watermarks(1);
    before.output("a").collect(100L);
    before.onPeriodicEmit();
    List<SourceWatermarks.Entry> checkpoint = before.snapshot();
    out.clear();

    SourceWatermarks<Long> after = watermarks(0); // split "a" moved to subtask 0
    after.restore(checkpoint);
    assertThat(out).isEmpty(); // not its own entries: nothing emitted before a record
    after.output("a").collect(70L);
    after.onPeriodicEmit();
    assertThat(out).containsExactly("70@70", "wm 89");
  }

  @Test
  void anEntryRoundTripsThroughBytes() throws Exception {
    SourceWatermarks.Entry e = new SourceWatermarks.Entry("split-7", 1234L, 4, 3);
    assertThat(SourceWatermarks.Entry.fromBytes(e.toBytes())).isEqualTo(e);
  }
}
