package io.weir.runtime.metrics;

import io.weir.api.metrics.Metric;
import io.weir.api.metrics.View;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The metrics one subtask's functions registered on their operators' groups ({@link
 * OperatorMetrics}), and whoever reports them: a reporter subscribes and is told of every metric,
 * those registered before and after. Its {@link View}s are updated by the process's {@link
 * ViewUpdater} until the subtask ends ({@link #close}). Thread-safe: functions register on the
 * task's thread (in {@code open}, usually), a reporter subscribes from its own.
 */
public final class UserMetrics implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(UserMetrics.class);

  private final List<UserMetric> metrics = new ArrayList<>();
  private final List<Consumer<UserMetric>> subscribers = new ArrayList<>();
  private final ViewUpdater views;
  private boolean closed;

  /** The metrics of a subtask, its views updated by the process's updater. */
  public UserMetrics() {
    this(ViewUpdater.shared());
  }

  UserMetrics(ViewUpdater views) {
    this.views = views;
  }

  /**
   * One metric with where it belongs.
   *
   * @param operatorName the operator whose group it was registered on
   * @param operatorId the operator's id (its uid's hash, or the generated one)
   * @param groups the names of the nested groups, outermost first: the keys of key-value groups
   *     among them
   * @param variables the variables of key-value groups, by key
   * @param scope the scope below the operator, as Flink's REST API names it: each group's name, a
   *     key-value group's key followed by its value, outermost first
   * @param name the metric's name
   * @param metric the metric
   */
  public record UserMetric(
      String operatorName,
      String operatorId,
      List<String> groups,
      Map<String, String> variables,
      List<String> scope,
      String name,
      Metric metric) {
    public UserMetric {
      groups = List.copyOf(groups);
      variables = Map.copyOf(variables);
      scope = List.copyOf(scope);
    }
  }

  /** Adds {@code metric} and tells every subscriber of it. */
  public synchronized void add(UserMetric metric) {
    metrics.add(metric);
    if (metric.metric() instanceof View view && !closed) {
      views.add(view);
    }
    for (Consumer<UserMetric> subscriber : subscribers) {
      tell(subscriber, metric);
    }
  }

  /**
   * Tells {@code subscriber} of every metric registered so far and from now on, until the returned
   * handle is closed.
   */
  public synchronized AutoCloseable subscribe(Consumer<UserMetric> subscriber) {
    subscribers.add(subscriber);
    for (UserMetric metric : metrics) {
      tell(subscriber, metric);
    }
    return () -> {
      synchronized (this) {
        subscribers.remove(subscriber);
      }
    };
  }

  /** The metrics registered so far. */
  public synchronized List<UserMetric> all() {
    return List.copyOf(metrics);
  }

  /** The subtask ended: its views are no longer updated. */
  @Override
  public synchronized void close() {
    closed = true;
    for (UserMetric metric : metrics) {
      if (metric.metric() instanceof View view) {
        views.remove(view);
      }
    }
  }

  /** A reporter that cannot report a metric does not fail the function that registered it. */
  private static void tell(Consumer<UserMetric> subscriber, UserMetric metric) {
    try {
      subscriber.accept(metric);
    } catch (RuntimeException e) {
      LOG.warn(
          "Metric '{}' of operator '{}' is not reported: {}",
          metric.name(),
          metric.operatorName(),
          e.getMessage());
    }
  }
}
