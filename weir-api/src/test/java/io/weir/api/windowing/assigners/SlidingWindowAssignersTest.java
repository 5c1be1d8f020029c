package io.weir.api.windowing.assigners;

import static org.assertj.core.api.Assertions.assertThat;

import io.weir.api.windowing.windows.TimeWindow;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The sliding assigners hand out windows they made before while those are recent: the windows must
 * be the ones Flink's rule gives, whatever the order of the timestamps, the offset or how many
 * windows an element falls into.
 */
class SlidingWindowAssignersTest {

  /** Flink's rule: every window [start, start + size) with start = offset + k * slide over t. */
  private static List<TimeWindow> expected(long t, long size, long slide, long offset) {
    List<TimeWindow> windows = new ArrayList<>();
    long lastStart = t - Math.floorMod(t - offset, slide);
    for (long start = lastStart; start > t - size; start -= slide) {
      windows.add(new TimeWindow(start, start + size));
    }
    return windows;
  }

  @Test
  void eventTimeWindowsAreFlinksForTimestampsInAnyOrder() {
    Random random = new Random(46);
    long[][] shapes = {{10, 5, 0}, {10_000, 2_000, 0}, {10, 3, 2}, {10, 3, -2}, {7, 1, 0}};
    for (long[] shape : shapes) {
      SlidingEventTimeWindows assigner =
          SlidingEventTimeWindows.of(
              Duration.ofMillis(shape[0]),
              Duration.ofMillis(shape[1]),
              Duration.ofMillis(shape[2]));
      for (int i = 0; i < 20_000; i++) {
        // Mostly near each other, sometimes far back or negative, as out-of-order input is.
        long t =
            i % 97 == 0 ? random.nextLong() % 1_000_000 : 500_000 + random.nextInt(200) - i % 300;
        assertThat(assigner.assignWindows(null, t, null))
            .as("windows of %d for size %d, slide %d, offset %d", t, shape[0], shape[1], shape[2])
            .containsExactlyElementsOf(expected(t, shape[0], shape[1], shape[2]));
      }
    }
  }

  @Test
  void processingTimeWindowsAreFlinksAndMoreThanTheRecentSlotsStillAre() {
    long[] now = {0};
    WindowAssigner.WindowAssignerContext clock =
        new WindowAssigner.WindowAssignerContext() {
          @Override
          public long getCurrentProcessingTime() {
            return now[0];
          }
        };
    // 200 windows per element: more than the assigner keeps, so slots are taken over in one call.
    SlidingProcessingTimeWindows assigner =
        SlidingProcessingTimeWindows.of(Duration.ofMillis(200), Duration.ofMillis(1));
    for (long t = -50; t < 1_000; t += 7) {
      now[0] = t;
      assertThat(assigner.assignWindows(null, Long.MIN_VALUE, clock))
          .containsExactlyElementsOf(expected(t, 200, 1, 0));
    }
  }
}
