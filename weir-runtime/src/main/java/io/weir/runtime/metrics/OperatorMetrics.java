package io.weir.runtime.metrics;

import io.weir.api.functions.TaskInfo;
import io.weir.api.metrics.Counter;
import io.weir.api.metrics.Gauge;
import io.weir.api.metrics.Histogram;
import io.weir.api.metrics.Meter;
import io.weir.api.metrics.Metric;
import io.weir.api.metrics.MetricGroup;
import io.weir.api.metrics.OperatorMetricGroup;
import io.weir.api.metrics.SimpleCounter;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The metric group of one operator's subtask, or a group nested in it: what {@code
 * getRuntimeContext().getMetricGroup()} returns. Registers into the subtask's {@link UserMetrics}.
 */
public final class OperatorMetrics implements OperatorMetricGroup {

  private static final Logger LOG = LoggerFactory.getLogger(OperatorMetrics.class);

  private final UserMetrics registry;
  private final String operatorName;
  private final String operatorId;
  private final List<String> scope;

  /** The part of {@link #scope} below the operator: the groups', with key-value groups' values. */
  private final List<String> userScope;

  private final List<String> groups;
  private final Map<String, String> variables;
  private final Map<String, String> labels;
  private final Set<String> names = new HashSet<>();

  private OperatorMetrics(
      UserMetrics registry,
      String operatorName,
      String operatorId,
      List<String> scope,
      List<String> userScope,
      List<String> groups,
      Map<String, String> variables,
      Map<String, String> labels) {
    this.registry = registry;
    this.operatorName = operatorName;
    this.operatorId = operatorId;
    this.scope = List.copyOf(scope);
    this.userScope = List.copyOf(userScope);
    this.groups = List.copyOf(groups);
    this.variables = variables;
    this.labels = labels;
  }

  /**
   * The group of operator {@code operatorName} ({@code operatorId}) of the subtask {@code task} of
   * job {@code jobName}, registering into {@code registry}.
   */
  public static OperatorMetrics of(
      UserMetrics registry, String jobName, TaskInfo task, String operatorName, String operatorId) {
    Map<String, String> variables = new LinkedHashMap<>();
    variables.put("<job_name>", jobName);
    variables.put("<task_name>", task.taskName());
    variables.put("<subtask_index>", String.valueOf(task.indexOfThisSubtask()));
    variables.put("<task_attempt_num>", String.valueOf(task.attemptNumber()));
    variables.put("<operator_id>", operatorId);
    variables.put("<operator_name>", operatorName);
    return new OperatorMetrics(
        registry,
        operatorName,
        operatorId,
        List.of("taskmanager", jobName, operatorName, String.valueOf(task.indexOfThisSubtask())),
        List.of(),
        List.of(),
        variables,
        Map.of());
  }

  /** A group whose metrics nobody reports: operators run outside a task (test harnesses). */
  public static OperatorMetrics unreported(TaskInfo task, String operatorName, String operatorId) {
    return of(new UserMetrics(), "job", task, operatorName, operatorId);
  }

  @Override
  public Counter counter(String name) {
    return counter(name, new SimpleCounter());
  }

  @Override
  public <C extends Counter> C counter(String name, C counter) {
    return register(name, counter);
  }

  @Override
  public <T, G extends Gauge<T>> G gauge(String name, G gauge) {
    return register(name, gauge);
  }

  @Override
  public <M extends Meter> M meter(String name, M meter) {
    return register(name, meter);
  }

  @Override
  public <H extends Histogram> H histogram(String name, H histogram) {
    return register(name, histogram);
  }

  private <M extends Metric> M register(String name, M metric) {
    if (name == null || name.isBlank()) {
      throw new IllegalArgumentException(
          "A metric of operator '" + operatorName + "' needs a name, but was '" + name + "'");
    }
    if (metric == null) {
      throw new IllegalArgumentException(
          "Metric '" + name + "' of operator '" + operatorName + "' must not be null");
    }
    synchronized (names) {
      if (!names.add(name)) {
        LOG.warn(
            "Operator '{}' registered metric '{}' twice in group {}: the first is reported, this"
                + " one is not",
            operatorName,
            name,
            groups);
        return metric;
      }
    }
    registry.add(
        new UserMetrics.UserMetric(
            operatorName, operatorId, groups, labels, userScope, name, metric));
    return metric;
  }

  @Override
  public MetricGroup addGroup(String name) {
    return nested(name, null);
  }

  @Override
  public MetricGroup addGroup(String key, String value) {
    return nested(key, value);
  }

  private OperatorMetrics nested(String key, String value) {
    if (key == null || key.isBlank()) {
      throw new IllegalArgumentException(
          "A metric group of operator '" + operatorName + "' needs a name, but was '" + key + "'");
    }
    List<String> nestedScope = new ArrayList<>(scope);
    List<String> nestedUserScope = new ArrayList<>(userScope);
    List<String> nestedGroups = new ArrayList<>(groups);
    nestedScope.add(key);
    nestedUserScope.add(key);
    nestedGroups.add(key);
    Map<String, String> nestedVariables = new LinkedHashMap<>(variables);
    Map<String, String> nestedLabels = new LinkedHashMap<>(labels);
    if (value != null) {
      nestedScope.add(value);
      nestedUserScope.add(value);
      nestedVariables.put("<" + key + ">", value);
      nestedLabels.put(key, value);
    }
    return new OperatorMetrics(
        registry,
        operatorName,
        operatorId,
        nestedScope,
        nestedUserScope,
        nestedGroups,
        nestedVariables,
        nestedLabels);
  }

  @Override
  public List<String> getScopeComponents() {
    return scope;
  }

  @Override
  public Map<String, String> getAllVariables() {
    return Map.copyOf(variables);
  }

  @Override
  public String getMetricIdentifier(String metricName) {
    return String.join(".", scope) + "." + metricName;
  }
}
