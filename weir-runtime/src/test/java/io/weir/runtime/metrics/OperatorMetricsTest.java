package io.weir.runtime.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.weir.api.functions.TaskInfo;
import io.weir.api.metrics.Counter;
import io.weir.api.metrics.MetricGroup;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** An operator's metric group: scopes, variables, and what a reporter is told. */
class OperatorMetricsTest {

  private final UserMetrics registry = new UserMetrics();
  private final OperatorMetrics group =
      OperatorMetrics.of(
          registry, "keyed count", new TaskInfo("Count -> Sink", 2, 4, 128, 1), "Count", "op-1");

  @Test
  void groupsNestInTheNameAndKeyValueGroupsAddALabel() {
    MetricGroup shard = group.addGroup("Shards").addGroup("shard", "east");
    shard.counter("events");

    UserMetrics.UserMetric reported = registry.all().get(0);
    assertThat(reported.groups()).containsExactly("Shards", "shard");
    assertThat(reported.variables()).containsExactly(java.util.Map.entry("shard", "east"));
    assertThat(reported.operatorName()).isEqualTo("Count");
    assertThat(reported.operatorId()).isEqualTo("op-1");
    assertThat(shard.getMetricIdentifier("events"))
        .isEqualTo("taskmanager.keyed count.Count.2.Shards.shard.east.events");
    assertThat(shard.getAllVariables())
        .containsEntry("<operator_name>", "Count")
        .containsEntry("<subtask_index>", "2")
        .containsEntry("<shard>", "east");
    assertThat(group.getAllVariables()).doesNotContainKey("<shard>");
  }

  @Test
  void aReporterIsToldOfMetricsRegisteredBeforeAndAfterItSubscribed() throws Exception {
    group.counter("before");
    List<String> told = new ArrayList<>();
    AutoCloseable subscription = registry.subscribe(m -> told.add(m.name()));
    group.counter("after");
    subscription.close();
    group.counter("unsubscribed");
    assertThat(told).containsExactly("before", "after");
  }

  @Test
  void aNameRegisteredTwiceKeepsTheFirstAndTheSecondIsReturnedUnreported() {
    Counter first = group.counter("events");
    Counter second = group.counter("events");
    assertThat(second).isNotSameAs(first);
    assertThat(registry.all())
        .singleElement()
        .satisfies(m -> assertThat(m.metric()).isSameAs(first));
    group.addGroup("other").counter("events");
    assertThat(registry.all()).as("another group may use the name").hasSize(2);
  }

  @Test
  void aMetricOrGroupWithoutANameIsRefusedNamingTheOperator() {
    assertThatThrownBy(() -> group.counter(" "))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("operator 'Count'");
    assertThatThrownBy(() -> group.addGroup((String) null))
        .hasMessageContaining("operator 'Count'");
    assertThatThrownBy(() -> group.gauge("g", null)).hasMessageContaining("'g'");
  }

  @Test
  void aReporterThatCannotReportAMetricDoesNotFailTheFunction() throws Exception {
    registry.subscribe(
        m -> {
          throw new IllegalArgumentException("tag keys differ");
        });
    Counter counter = group.counter("events");
    counter.inc();
    assertThat(counter.getCount()).isEqualTo(1);
  }
}
