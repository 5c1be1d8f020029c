package io.weir.runtime.testing;

import io.weir.api.DataStream;
import io.weir.api.OutputTag;
import io.weir.api.StreamEnvironment;
import io.weir.api.functions.AggregateFunction;
import io.weir.api.functions.Collector;
import io.weir.api.functions.windowing.ProcessAllWindowFunction;
import io.weir.api.functions.windowing.ProcessWindowFunction;
import io.weir.api.typeutils.Types;
import io.weir.api.windowing.assigners.EventTimeSessionWindows;
import io.weir.api.windowing.assigners.GlobalWindows;
import io.weir.api.windowing.assigners.SlidingEventTimeWindows;
import io.weir.api.windowing.assigners.TumblingEventTimeWindows;
import io.weir.api.windowing.assigners.TumblingProcessingTimeWindows;
import io.weir.api.windowing.evictors.CountEvictor;
import io.weir.api.windowing.triggers.CountTrigger;
import io.weir.api.windowing.triggers.ProcessingTimeTrigger;
import io.weir.api.windowing.triggers.PurgingTrigger;
import io.weir.api.windowing.triggers.Trigger;
import io.weir.api.windowing.triggers.TriggerResult;
import io.weir.api.windowing.windows.GlobalWindow;
import io.weir.api.windowing.windows.TimeWindow;
import io.weir.runtime.testing.matrix.TestMatrix;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The window operator through the harness: every script runs uninterrupted, with a snapshot +
 * restore into a fresh instance before each step and before every step, and with crashes and
 * replays from checkpoints, and must give the same output each time. So window contents,
 * merging-window sets, trigger state and timers all survive checkpoints. Results of windows that
 * fire at the same watermark for different keys come in no particular order.
 */
@Timeout(120)
@TestMatrix
class WindowOperatorHarnessTest {

  /** Counts elements: one accumulator per key and window. */
  static final class Count implements AggregateFunction<String, Long, Long> {
    private static final long serialVersionUID = 1L;

    @Override
    public Long createAccumulator() {
      return 0L;
    }

    @Override
    public Long add(String value, Long accumulator) {
      return accumulator + 1;
    }

    @Override
    public Long getResult(Long accumulator) {
      return accumulator;
    }

    @Override
    public Long merge(Long a, Long b) {
      return a + b;
    }
  }

  /** "key@start=count" for each window. */
  static final class Describe extends ProcessWindowFunction<Long, String, String, TimeWindow> {
    private static final long serialVersionUID = 1L;

    @Override
    public void process(
        String key, Context context, Iterable<Long> elements, Collector<String> out) {
      for (Long count : elements) {
        out.collect(key + "@" + context.window().getStart() + "=" + count);
      }
    }
  }

  /** "key[start,end)=n" with the number of elements the window holds. */
  static final class ListSessions
      extends ProcessWindowFunction<String, String, String, TimeWindow> {
    private static final long serialVersionUID = 1L;

    @Override
    public void process(
        String key, Context context, Iterable<String> elements, Collector<String> out) {
      int n = 0;
      for (String ignored : elements) {
        n++;
      }
      TimeWindow w = context.window();
      out.collect(key + "[" + w.getStart() + "," + w.getEnd() + ")=" + n);
    }
  }

  /** The elements of a global window, joined. */
  static final class Join extends ProcessWindowFunction<String, String, String, GlobalWindow> {
    private static final long serialVersionUID = 1L;

    @Override
    public void process(
        String key, Context context, Iterable<String> elements, Collector<String> out) {
      List<String> all = new ArrayList<>();
      elements.forEach(all::add);
      out.collect(String.join(",", all));
    }
  }

  /** Static, so that it does not capture the test instance. */
  private static final OutputTag<String> LATE = new OutputTag<>("late") {};

  /** The elements of each window of the whole stream, sorted. */
  static final class AllSorted extends ProcessAllWindowFunction<String, String, TimeWindow> {
    private static final long serialVersionUID = 1L;

    @Override
    public void process(Context context, Iterable<String> elements, Collector<String> out) {
      List<String> sorted = new ArrayList<>();
      elements.forEach(sorted::add);
      sorted.sort(null);
      out.collect(context.window().getStart() + ":" + String.join(",", sorted));
    }
  }

  /**
   * Fires early at the window's start + 2 (event or processing time) and at its end. An element
   * ending in '-' deletes the early timer instead of registering it, so the same timer of the same
   * key and window is registered, deleted, fired and registered again: what the window operator's
   * cache of known timers must forget each time.
   */
  static final class EarlyTimer extends Trigger<String, TimeWindow> {
    private static final long serialVersionUID = 1L;
    private final boolean processingTime;

    EarlyTimer(boolean processingTime) {
      this.processingTime = processingTime;
    }

    private long early(TimeWindow window) {
      return window.getStart() + 2;
    }

    @Override
    public TriggerResult onElement(
        String element, long timestamp, TimeWindow window, TriggerContext ctx) {
      boolean delete = element.endsWith("-");
      if (processingTime && delete) {
        ctx.deleteProcessingTimeTimer(early(window));
      } else if (processingTime) {
        ctx.registerProcessingTimeTimer(early(window));
      } else if (delete) {
        ctx.deleteEventTimeTimer(early(window));
      } else {
        ctx.registerEventTimeTimer(early(window));
      }
      ctx.registerEventTimeTimer(window.maxTimestamp());
      return TriggerResult.CONTINUE;
    }

    @Override
    public TriggerResult onProcessingTime(long time, TimeWindow window, TriggerContext ctx) {
      return TriggerResult.FIRE;
    }

    @Override
    public TriggerResult onEventTime(long time, TimeWindow window, TriggerContext ctx) {
      return TriggerResult.FIRE;
    }

    @Override
    public void clear(TimeWindow window, TriggerContext ctx) {
      ctx.deleteEventTimeTimer(window.maxTimestamp());
      if (processingTime) {
        ctx.deleteProcessingTimeTimer(early(window));
      } else {
        ctx.deleteEventTimeTimer(early(window));
      }
    }
  }

  @Test
  void aTimerRegisteredAgainAfterItWasDeletedOrFiredFiresAgain() {
    DataStream<String> counts =
        strings()
            .keyBy(WindowOperatorHarnessTest::key, Types.STRING)
            .window(TumblingEventTimeWindows.of(Duration.ofMillis(10)))
            .trigger(new EarlyTimer(false))
            .aggregate(new Count(), new Describe());
    OperatorHarness.<String, String>forStream(counts)
        .element("a", 1) // registers 2 and 9
        .element("a", 3) // the same two timers again
        .element("a-", 4) // deletes 2
        .element("a", 5) // registers 2 again
        .watermark(2) // fires a's 2
        .element("a", 6) // registers 2 again, already due
        .element("b", 7)
        .watermark(3) // fires a's 2 again, and b's
        .element("a", 8) // registers 2 again
        .watermark(9) // a's 2 a third time, then the ends of both windows
        .element("a", 12) // fires early at 12 and at 19, both at finish()
        .expectOutputInAnyOrder(
            List.of("a@0=4", "a@0=5", "b@0=1", "a@0=6", "a@0=6", "b@0=1", "a@10=1", "a@10=1"))
        .verify();
  }

  @Test
  void aProcessingTimeTimerRegisteredAgainAfterItWasDeletedOrFiredFiresAgain() {
    DataStream<String> counts =
        strings()
            .keyBy(WindowOperatorHarnessTest::key, Types.STRING)
            .window(TumblingEventTimeWindows.of(Duration.ofMillis(10)))
            .trigger(new EarlyTimer(true))
            .aggregate(new Count(), new Describe());
    OperatorHarness.<String, String>forStream(counts)
        .element("a", 1) // registers processing time 2 and event time 9
        .element("a", 3)
        .element("a-", 4) // deletes processing time 2
        .element("a", 5) // registers it again
        .advanceProcessingTime(2) // fires it
        .element("a", 6) // registers it again, already due
        .advanceProcessingTime(3)
        .watermark(9)
        .expectOutput(List.of("a@0=4", "a@0=5", "a@0=5"))
        .verify();
  }

  private static DataStream<String> strings() {
    return StreamEnvironment.create().fromElements("a");
  }

  private static String key(String s) {
    return s.substring(0, 1);
  }

  @Test
  void tumblingEventTimeWindowsCountOutOfOrderElements() {
    DataStream<String> counts =
        strings()
            .keyBy(WindowOperatorHarnessTest::key, Types.STRING)
            .window(TumblingEventTimeWindows.of(Duration.ofMillis(10)))
            .aggregate(new Count(), new Describe());
    OperatorHarness.<String, String>forStream(counts)
        .element("a", 1)
        .element("b", 3)
        .element("a", 12)
        .element("a", 5)
        .watermark(9)
        .element("b", 15)
        .watermark(19)
        .element("a", 25)
        .expectOutputInAnyOrder(List.of("a@0=2", "b@0=1", "a@10=1", "b@10=1", "a@20=1"))
        .verify();
  }

  @Test
  void slidingWindowsGiveEveryElementToEachOfItsWindows() {
    DataStream<String> counts =
        strings()
            .keyBy(WindowOperatorHarnessTest::key, Types.STRING)
            .window(SlidingEventTimeWindows.of(Duration.ofMillis(10), Duration.ofMillis(5)))
            .aggregate(new Count(), new Describe());
    OperatorHarness.<String, String>forStream(counts)
        .element("a", 1)
        .element("a", 6)
        .watermark(9)
        .element("a", 12)
        .expectOutput(List.of("a@-5=1", "a@0=2", "a@5=2", "a@10=1"))
        .verify();
  }

  @Test
  @SuppressWarnings({"unchecked", "rawtypes"})
  void lateElementsFireAgainWithinTheAllowedLatenessAndGoToTheSideOutputAfter() {
    DataStream<String> counts =
        strings()
            .keyBy(WindowOperatorHarnessTest::key, Types.STRING)
            .window(TumblingEventTimeWindows.of(Duration.ofMillis(10)))
            .allowedLateness(Duration.ofMillis(5))
            .sideOutputLateData(LATE)
            .aggregate(new Count(), new Describe());
    // The side output is recorded among the main output.
    OperatorHarness.<String, Object>forStream((DataStream<Object>) (DataStream) counts)
        .element("a", 1)
        .watermark(10) // fires [0, 10)
        .element("a", 2) // late, within the lateness: fires again
        .watermark(14) // the window's cleanup time
        .element("a", 3) // too late: side output
        .element("a", 11)
        .expectOutput(List.of("a@0=1", "a@0=2", new SideOutput("late", "a"), "a@10=1"))
        .verify();
  }

  @Test
  @SuppressWarnings({"unchecked", "rawtypes"})
  void aWindowThatHoldsElementsFiresAgainOnEachLateElementAndOnceAtItsEnd() {
    DataStream<String> counts =
        strings()
            .keyBy(WindowOperatorHarnessTest::key, Types.STRING)
            .window(SlidingEventTimeWindows.of(Duration.ofMillis(10), Duration.ofMillis(5)))
            .allowedLateness(Duration.ofMillis(5))
            .sideOutputLateData(LATE)
            .aggregate(new Count(), new Describe());
    OperatorHarness.<String, Object>forStream((DataStream<Object>) (DataStream) counts)
        .element("a", 6) // [0, 10) and [5, 15)
        .element("a", 7)
        .element("a", 8)
        .watermark(9) // fires [0, 10) once
        .element("a", 9) // late for [0, 10): fires it again; [5, 15) only counts it
        .element("a", 7) // and again
        .watermark(14) // cleans [0, 10) up, fires [5, 15)
        .element("a", 8) // too late for [0, 10), late for [5, 15): fires it again
        .watermark(19) // cleans [5, 15) up
        .element("a", 9) // too late for both
        .expectOutput(
            List.of("a@0=3", "a@0=4", "a@0=5", "a@5=5", "a@5=6", new SideOutput("late", "a")))
        .verify();
  }

  @Test
  void theProcessingTimeTriggerOnEventTimeWindowsFiresAgainForAnElementAfterTheEnd() {
    DataStream<String> counts =
        strings()
            .keyBy(WindowOperatorHarnessTest::key, Types.STRING)
            .window(TumblingEventTimeWindows.of(Duration.ofMillis(10)))
            .trigger(ProcessingTimeTrigger.create())
            .aggregate(new Count(), new Describe());
    OperatorHarness.<String, String>forStream(counts)
        .element("a", 1)
        .element("a", 2)
        .advanceProcessingTime(10) // past the window's end: fires it, which stays
        .element("a", 3) // sets a timer in the past again: fires it again
        .advanceProcessingTime(11)
        .expectOutput(List.of("a@0=2", "a@0=3"))
        .verify();
  }

  @Test
  void sessionWindowsMergeAcrossRestores() {
    DataStream<String> sessions =
        strings()
            .keyBy(WindowOperatorHarnessTest::key, Types.STRING)
            .window(EventTimeSessionWindows.withGap(Duration.ofMillis(10)))
            .process(new ListSessions());
    OperatorHarness.<String, String>forStream(sessions)
        .element("a", 1)
        .element("b", 3)
        .element("a", 5) // extends a's session to [1, 15)
        .element("a", 30)
        .element("a", 20) // bridges to [30, 40): [20, 40)
        .watermark(16) // a[1,15) and b[3,13) end
        .element("b", 17)
        .expectOutputInAnyOrder(List.of("a[1,15)=2", "b[3,13)=1", "a[20,40)=2", "b[17,27)=1"))
        .verify();
  }

  @Test
  void sessionWindowsWithACountTriggerMergeTheCounts() {
    DataStream<String> sessions =
        strings()
            .keyBy(WindowOperatorHarnessTest::key, Types.STRING)
            .window(EventTimeSessionWindows.withGap(Duration.ofMillis(10)))
            .trigger(CountTrigger.of(3))
            .process(new ListSessions());
    OperatorHarness.<String, String>forStream(sessions)
        .element("a", 1)
        .element("a", 30)
        .element("a", 20) // merges all: [1,11) and [20,40) stay apart; [20,30)+[30,40) count 2
        .element("a", 25) // third element of [20, 40)
        .expectOutput(List.of("a[20,40)=3"))
        .verify();
  }

  @Test
  void globalWindowsWithAPurgingCountTrigger() {
    DataStream<String> joined =
        strings()
            .keyBy(WindowOperatorHarnessTest::key, Types.STRING)
            .window(GlobalWindows.create())
            .trigger(PurgingTrigger.of(CountTrigger.of(2)))
            .reduce((x, y) -> x + "+" + y);
    OperatorHarness.<String, String>forStream(joined)
        .input("a1", "b1", "a2", "a3", "b2", "a4", "a5")
        .expectOutput(List.of("a1+a2", "b1+b2", "a3+a4"))
        .verify();
  }

  @Test
  void aCountEvictorKeepsTheLastElements() {
    DataStream<String> joined =
        strings()
            .keyBy(WindowOperatorHarnessTest::key, Types.STRING)
            .window(GlobalWindows.create())
            .trigger(CountTrigger.of(3))
            .evictor(CountEvictor.of(2))
            .process(new Join());
    OperatorHarness.<String, String>forStream(joined)
        .input("a1", "a2", "a3", "a4", "a5", "a6")
        .expectOutput(List.of("a2,a3", "a5,a6"))
        .verify();
  }

  @Test
  void processingTimeWindowsFireWhenTheClockPassesTheirEnd() {
    DataStream<String> counts =
        strings()
            .keyBy(WindowOperatorHarnessTest::key, Types.STRING)
            .window(TumblingProcessingTimeWindows.of(Duration.ofMillis(10)))
            .aggregate(new Count(), new Describe());
    OperatorHarness.<String, String>forStream(counts)
        .element("a")
        .element("a")
        .advanceProcessingTime(10)
        .element("b")
        .advanceProcessingTime(25)
        .expectOutput(List.of("a@0=2", "b@10=1"))
        .verify();
  }

  @Test
  void windowAllSeesEveryKey() {
    DataStream<String> all =
        strings()
            .windowAll(TumblingEventTimeWindows.of(Duration.ofMillis(10)))
            .process(new AllSorted());
    OperatorHarness.<String, String>forStream(all)
        .element("b", 1)
        .element("a", 2)
        .watermark(10)
        .element("c", 11)
        .expectOutput(List.of("0:a,b", "10:c"))
        .verify();
  }
}
