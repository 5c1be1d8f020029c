package io.weir.cluster.jobmanager;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.weir.cluster.jobmanager.SlotPlacement.Offer;
import io.weir.cluster.jobmanager.SlotPlacement.Share;
import io.weir.runtime.taskexecutor.ExecutionAttemptId;
import io.weir.runtime.taskexecutor.TaskDeploymentDescriptor;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The one slot placement of the cluster and the mini cluster. */
class SlotPlacementTest {

  private static final List<Offer<String>> OFFERS =
      List.of(new Offer<>("a", 2), new Offer<>("b", 3), new Offer<>("c", 1));

  @Test
  void packedFillsTheTaskManagersInTheirOrder() {
    SlotPlacement<String> placement = SlotPlacement.place(4, OFFERS, false);

    assertThat(placement.shares()).containsExactly(new Share<>("a", 2), new Share<>("b", 2));
    assertThat(placement.spansSeveralTaskManagers()).isTrue();
  }

  @Test
  void packedStaysOnOneTaskManagerWhenItHasTheSlots() {
    SlotPlacement<String> placement = SlotPlacement.place(2, OFFERS, false);

    assertThat(placement.shares()).containsExactly(new Share<>("a", 2));
    assertThat(placement.spansSeveralTaskManagers()).isFalse();
  }

  @Test
  void spreadOutTakesOneSlotAtATimeFromEachTaskManagerWithFreeSlots() {
    SlotPlacement<String> placement = SlotPlacement.place(5, OFFERS, true);

    assertThat(placement.shares())
        .containsExactly(new Share<>("a", 2), new Share<>("b", 2), new Share<>("c", 1));
  }

  @Test
  void fewerFreeSlotsThanNeededPlaceNothing() {
    assertThat(SlotPlacement.place(7, OFFERS, false)).isNull();
    assertThat(SlotPlacement.place(7, OFFERS, true)).isNull();
    assertThat(SlotPlacement.place(1, List.<Offer<String>>of(), true)).isNull();
  }

  @Test
  void slotIRunsSubtaskIOfEveryVertexWithEachTaskManagersSlotsConsecutive() {
    SlotPlacement<String> placement = SlotPlacement.place(5, OFFERS, true);

    assertThat(placement.taskManagerOf(0)).isEqualTo("a");
    assertThat(placement.taskManagerOf(1)).isEqualTo("a");
    assertThat(placement.taskManagerOf(2)).isEqualTo("b");
    assertThat(placement.taskManagerOf(4)).isEqualTo("c");
    assertThat(placement.addresses(3, tm -> tm + ":1")).containsExactly("a:1", "a:1", "b:1");
    assertThatThrownBy(() -> placement.taskManagerOf(5))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("Subtask 5 has no slot");
  }

  @Test
  void descriptorsGoToTheTaskManagerOfTheirSubtaskInSlotOrder() {
    SlotPlacement<String> placement = SlotPlacement.place(3, OFFERS, false);
    TaskDeploymentDescriptor v0s2 = task(0, 2);
    TaskDeploymentDescriptor v0s0 = task(0, 0);
    TaskDeploymentDescriptor v1s1 = task(1, 1);

    Map<String, List<TaskDeploymentDescriptor>> shares =
        placement.byTaskManager(List.of(v0s2, v0s0, v1s1));

    assertThat(shares).containsOnlyKeys("b", "a");
    assertThat(shares.get("a")).containsExactly(v0s0, v1s1);
    assertThat(shares.get("b")).containsExactly(v0s2);
  }

  @Test
  void theMiniClustersOffersSpreadAnAttemptOverAllItsTaskManagers() {
    List<Offer<Integer>> offers = List.of(new Offer<>(0, 4), new Offer<>(1, 4));

    SlotPlacement<Integer> placement = SlotPlacement.place(4, offers, true);

    assertThat(placement.addresses(4, String::valueOf)).containsExactly("0", "0", "1", "1");
  }

  @Test
  void eachSlotSharingGroupTakesSlotsOfItsOwnSoItsSubtasksNeverShareOneWithAnotherGroup() {
    io.weir.api.StreamEnvironment env = io.weir.api.StreamEnvironment.create();
    env.setParallelism(2);
    var sink =
        env.fromSequence(1, 10)
            .map(n -> n + 1)
            .slotSharingGroup("heavy")
            .setParallelism(3)
            .sinkTo(new io.weir.api.sink.DiscardingSink<>())
            .slotSharingGroup("default");
    io.weir.runtime.graph.JobGraph graph =
        io.weir.runtime.graph.JobGraphBuilder.build(
            new io.weir.api.graph.Pipeline(
                "groups", List.of(sink.getTransformation()), env.getConfiguration()));
    // Vertices: source (default, 2), map (heavy, 3), sink (default, 2).
    assertThat(graph.vertices())
        .extracting(v -> v.getSlotSharingGroup() + "/" + v.getParallelism())
        .containsExactly("default/2", "heavy/3", "default/2");

    assertThat(SlotPlacement.slotsFor(graph)).isEqualTo(5);
    assertThat(SlotPlacement.slotOf(graph, 0, 1)).isEqualTo(1);
    assertThat(SlotPlacement.slotOf(graph, 2, 1)).isEqualTo(1);
    assertThat(SlotPlacement.slotOf(graph, 1, 0)).isEqualTo(2);
    assertThat(SlotPlacement.slotOf(graph, 1, 2)).isEqualTo(4);

    SlotPlacement<String> placement =
        SlotPlacement.place(5, List.of(new Offer<>("a", 2), new Offer<>("b", 3)), false);
    assertThat(placement.addresses(graph, graph.vertices().get(0), tm -> tm))
        .containsExactly("a", "a");
    assertThat(placement.addresses(graph, graph.vertices().get(1), tm -> tm))
        .containsExactly("b", "b", "b");
  }

  private static TaskDeploymentDescriptor task(int vertex, int subtask) {
    return new TaskDeploymentDescriptor(
        new ExecutionAttemptId("job", vertex, subtask, 0), null, null, null, null);
  }
}
