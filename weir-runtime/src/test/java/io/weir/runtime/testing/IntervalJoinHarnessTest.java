package io.weir.runtime.testing;

import io.weir.api.DataStream;
import io.weir.api.StreamEnvironment;
import io.weir.api.functions.Collector;
import io.weir.api.functions.ProcessJoinFunction;
import io.weir.api.typeutils.Types;
import io.weir.runtime.testing.matrix.MatrixCell;
import io.weir.runtime.testing.matrix.TestMatrix;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The interval join through the harness: both sides' buffers and cleanup timers are keyed state, so
 * snapshots, restores and crash replays at any step give the same pairs.
 */
@Timeout(120)
@TestMatrix(skip = MatrixCell.ROCKSDB_INCREMENTAL)
class IntervalJoinHarnessTest {

  /** "left+right@timestamp". */
  static final class Pair extends ProcessJoinFunction<String, String, String> {
    private static final long serialVersionUID = 1L;

    @Override
    public void processElement(String left, String right, Context ctx, Collector<String> out) {
      out.collect(left + "+" + right + "@" + ctx.getTimestamp());
    }
  }

  private static String key(String s) {
    return s.substring(0, 1);
  }

  private static DataStream<String> joined(boolean exclusive) {
    StreamEnvironment env = StreamEnvironment.create();
    var left = env.fromElements("a").keyBy(IntervalJoinHarnessTest::key, Types.STRING);
    var right = env.fromElements("a").keyBy(IntervalJoinHarnessTest::key, Types.STRING);
    var between = left.intervalJoin(right).between(Duration.ofMillis(-2), Duration.ofMillis(3));
    if (exclusive) {
      between.lowerBoundExclusive().upperBoundExclusive();
    }
    return between.process(new Pair());
  }

  @Test
  void elementsJoinTheOtherSideWithinTheBoundsOfTheirKey() {
    OperatorHarness.<String, String, String>forTwoInputStream(joined(false))
        .element1("a1", 10)
        .element2("aX", 8) // 10 - 2: joins a1
        .element2("aY", 14) // 10 + 4: outside
        .element2("bZ", 11) // other key
        .element1("a2", 12) // joins aY (12 + 2) only
        .element2("aW", 13) // joins a1 (10 + 3) and a2 (12 + 1)
        .expectOutputInAnyOrder(List.of("a1+aX@10", "a2+aY@14", "a1+aW@13", "a2+aW@13"))
        .verify();
  }

  @Test
  void exclusiveBoundsLeaveTheEndsOut() {
    OperatorHarness.<String, String, String>forTwoInputStream(joined(true))
        .element1("a1", 10)
        .element2("aX", 8)
        .element2("aY", 9)
        .element2("aZ", 13)
        .element2("aW", 12)
        .expectOutputInAnyOrder(List.of("a1+aY@10", "a1+aW@12"))
        .verify();
  }

  @Test
  void theWatermarkCleansTheBuffersAndLateElementsAreDropped() {
    OperatorHarness.<String, String, String>forTwoInputStream(joined(false))
        .element1("a1", 10)
        .watermark(12) // a1 can meet right elements up to 13: it stays
        .element2("aX", 13) // joins a1
        .watermark(13) // a1's last chance passed: it is gone
        .element2("aY", 13) // not late, but a1 is gone
        .element1("a2", 12) // behind the watermark: dropped (it would join aX and aY)
        .element1("a3", 15) // joins aX and aY (15 - 2)
        .expectOutputInAnyOrder(List.of("a1+aX@13", "a3+aX@15", "a3+aY@15"))
        .verify();
  }
}
