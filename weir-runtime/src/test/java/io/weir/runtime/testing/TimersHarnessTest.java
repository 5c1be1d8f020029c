package io.weir.runtime.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.weir.api.functions.Collector;
import io.weir.api.functions.KeyedProcessFunction;
import io.weir.api.functions.OpenContext;
import io.weir.api.state.ValueState;
import io.weir.api.state.ValueStateDescriptor;
import io.weir.api.typeutils.Types;
import io.weir.runtime.testing.matrix.MatrixCell;
import io.weir.runtime.testing.matrix.TestMatrix;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Timers through the harness: they are keyed state, so a restore (or a crash and replay) keeps the
 * timers registered before it. Processing time moves only by script steps; event-time timers fire
 * at {@code finish()} (the final watermark of a bounded input). Timers due at the same time fire in
 * no particular order, so the output is expected in any order.
 */
@Timeout(60)
@TestMatrix(skip = MatrixCell.ROCKSDB_INCREMENTAL)
class TimersHarnessTest {

  /**
   * Counts per key and reports the count when the key's timer fires, 100 ms (processing time) or at
   * timestamp + 10 (event time) after the key's first element; an element "-key" deletes the key's
   * pending timer.
   */
  static final class ReportLater extends KeyedProcessFunction<String, String, String> {
    private static final long serialVersionUID = 1L;
    private final boolean eventTime;
    private transient ValueState<Long> count;
    private transient ValueState<Long> due;

    ReportLater(boolean eventTime) {
      this.eventTime = eventTime;
    }

    @Override
    public void open(OpenContext openContext) {
      count = getRuntimeContext().getState(new ValueStateDescriptor<>("count", Types.LONG, 0L));
      due = getRuntimeContext().getState(new ValueStateDescriptor<>("due", Types.LONG));
    }

    @Override
    public void processElement(String element, Context ctx, Collector<String> out)
        throws Exception {
      if (element.startsWith("-")) {
        if (due.value() != null) {
          if (eventTime) {
            ctx.timerService().deleteEventTimeTimer(due.value());
          } else {
            ctx.timerService().deleteProcessingTimeTimer(due.value());
          }
          due.clear();
          out.collect(ctx.getCurrentKey() + " cancelled");
        }
        return;
      }
      count.update(count.value() + 1);
      if (due.value() == null) {
        long at =
            eventTime ? ctx.timestamp() + 10 : ctx.timerService().currentProcessingTime() + 100;
        due.update(at);
        if (eventTime) {
          ctx.timerService().registerEventTimeTimer(at);
        } else {
          ctx.timerService().registerProcessingTimeTimer(at);
        }
      }
    }

    @Override
    public void onTimer(long timestamp, OnTimerContext ctx, Collector<String> out)
        throws Exception {
      out.collect(
          ctx.getCurrentKey() + "=" + count.value() + " at " + timestamp + " " + ctx.timeDomain());
      due.clear();
    }
  }

  /** "-a" is keyed like "a". */
  static String key(String element) {
    return element.startsWith("-") ? element.substring(1) : element;
  }

  @Test
  void processingTimeTimers() {
    var harness =
        OperatorHarness.forKeyedProcess(
                new ReportLater(false), TimersHarnessTest::key, Types.STRING, Types.STRING)
            .input("a", "b", "c", "a")
            .advanceProcessingTime(50)
            .input("-c", "d")
            .advanceProcessingTime(100)
            .input("a", "b")
            .advanceProcessingTime(149)
            .advanceProcessingTime(150)
            .advanceProcessingTime(200)
            .expectOutputInAnyOrder(
                List.of(
                    "c cancelled",
                    "a=2 at 100 PROCESSING_TIME",
                    "b=1 at 100 PROCESSING_TIME",
                    "d=1 at 150 PROCESSING_TIME",
                    "a=3 at 200 PROCESSING_TIME",
                    "b=2 at 200 PROCESSING_TIME"));
    harness.verify();
    // Ordered where the times differ: the timer due at 150 fires between those due at 100 and 200.
    List<String> output = harness.runWithRestoresBefore(3, 7);
    assertThat(output.indexOf("d=1 at 150 PROCESSING_TIME"))
        .isBetween(
            output.indexOf("a=2 at 100 PROCESSING_TIME") + 1,
            output.indexOf("a=3 at 200 PROCESSING_TIME") - 1);
  }

  @Test
  void eventTimeTimersFireAtFinish() {
    OperatorHarness.forKeyedProcess(
            new ReportLater(true), TimersHarnessTest::key, Types.STRING, Types.STRING)
        .element("a", 1)
        .element("b", 2)
        .element("a", 5)
        .element("c", 7)
        .element("-b", 8)
        .element("b", 9)
        .expectOutputInAnyOrder(
            List.of(
                "b cancelled",
                "a=2 at 11 EVENT_TIME",
                "c=1 at 17 EVENT_TIME",
                "b=2 at 19 EVENT_TIME"))
        .verify();
  }
}
