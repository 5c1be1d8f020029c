package io.weir.runtime.metrics;

import io.weir.api.metrics.View;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Updates the functions' {@link View}s (a {@code MeterView}'s rate) every {@link
 * View#UPDATE_INTERVAL_SECONDS} seconds, as Flink's view updater does: whether or not a reporter
 * shows them, so that the REST API's values move as the Prometheus endpoint's do. One per process
 * ({@link #shared()}); its thread starts with the first view.
 */
public final class ViewUpdater {

  private static final Logger LOG = LoggerFactory.getLogger(ViewUpdater.class);
  private static final ViewUpdater SHARED = new ViewUpdater();

  private final Set<View> views = ConcurrentHashMap.newKeySet();
  private ScheduledExecutorService timer;

  /** The process's. */
  public static ViewUpdater shared() {
    return SHARED;
  }

  /** An updater of its own, whose views are updated only by {@link #updateNow}; for tests. */
  static ViewUpdater manual() {
    ViewUpdater updater = new ViewUpdater();
    updater.timer = Executors.newSingleThreadScheduledExecutor(); // never given a task
    updater.timer.shutdown();
    return updater;
  }

  private ViewUpdater() {}

  /** Updates {@code view} from the next interval on, until {@link #remove}d. */
  void add(View view) {
    views.add(view);
    startOnce();
  }

  void remove(View view) {
    views.remove(view);
  }

  /** Updates every view now; the updater's thread, or a test's. */
  public void updateNow() {
    for (View view : views) {
      try {
        view.update();
      } catch (RuntimeException e) {
        LOG.debug("Updating a function's metric view failed", e);
      }
    }
  }

  private synchronized void startOnce() {
    if (timer != null) {
      return;
    }
    timer =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "weir-metric-views");
              t.setDaemon(true);
              return t;
            });
    long interval = View.UPDATE_INTERVAL_SECONDS;
    var unused = timer.scheduleAtFixedRate(this::updateNow, interval, interval, TimeUnit.SECONDS);
  }
}
