package io.weir.runtime.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.weir.api.StreamEnvironment;
import io.weir.runtime.testing.matrix.TestMatrix;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A job whose operators are in two slot sharing groups and of different parallelism runs to the
 * same result as without groups, in every deployment of the matrix: on the mini cluster the groups
 * take slots of their own, so the job's subtasks spread over more slots.
 */
@Timeout(60)
@TestMatrix
class SlotSharingGroupJobTest {

  @Test
  void operatorsInTwoSlotSharingGroupsRunTogether() throws Exception {
    StreamEnvironment env = StreamEnvironment.create();
    env.setParallelism(2);
    CollectSink<Long> sink = new CollectSink<>();
    env.fromSequence(1, 1_000)
        .map(n -> n * 2)
        .slotSharingGroup("heavy")
        .setParallelism(3)
        .keyBy(n -> n % 7)
        .reduce(Long::sum)
        .slotSharingGroup("default")
        .sinkTo(sink);

    env.execute("slot-sharing-groups");

    long[] totals = new long[7];
    List<Long> expected = new ArrayList<>();
    for (long n = 1; n <= 1_000; n++) {
      long doubled = n * 2;
      totals[(int) (doubled % 7)] += doubled;
    }
    for (long total : totals) {
      expected.add(total);
    }
    // The last running sum of each key is its total.
    assertThat(sink.results()).containsAll(expected);
    assertThat(sink.results()).hasSize(1_000);
  }
}
