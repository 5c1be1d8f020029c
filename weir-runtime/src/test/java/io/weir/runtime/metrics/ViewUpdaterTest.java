package io.weir.runtime.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.weir.api.functions.TaskInfo;
import io.weir.api.metrics.MeterView;
import io.weir.api.metrics.MetricGroup;
import io.weir.api.metrics.SimpleCounter;
import org.junit.jupiter.api.Test;

/** A function's views are updated whether or not a reporter shows them, until its subtask ends. */
class ViewUpdaterTest {

  private final ViewUpdater updater = ViewUpdater.manual();
  private final UserMetrics registry = new UserMetrics(updater);
  private final MetricGroup group =
      OperatorMetrics.of(registry, "job", new TaskInfo("Map", 0, 1, 128, 0), "Map", "op-1");

  @Test
  void aMeterViewsRateMovesAtEachUpdateUntilItsSubtaskEnds() {
    MeterView perSecond = group.meter("perSecond", new MeterView(new SimpleCounter(), 5));
    perSecond.markEvent(50);
    assertThat(perSecond.getRate()).as("before the first update").isZero();

    updater.updateNow();
    assertThat(perSecond.getRate()).as("50 events in its 5 s").isEqualTo(10);

    registry.close();
    perSecond.markEvent(50);
    updater.updateNow();
    assertThat(perSecond.getRate()).as("its subtask ended: no longer updated").isEqualTo(10);
  }

  @Test
  void aViewRegisteredAfterItsSubtaskEndedIsNotUpdated() {
    registry.close();
    MeterView late = group.meter("late", new MeterView(new SimpleCounter(), 5));
    late.markEvent(50);
    updater.updateNow();
    assertThat(late.getRate()).isZero();
  }
}
