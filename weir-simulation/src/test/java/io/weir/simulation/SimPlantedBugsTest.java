package io.weir.simulation;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Bugs planted by hand ({@link Mutation}): some seed of the range each names (1..60, or more for a
 * bug only rarer interleavings reach) must break the invariant that guards against it, and the same
 * seed must pass without it.
 */
class SimPlantedBugsTest {

  @ParameterizedTest
  @CsvSource({
    "DOUBLE_NOTIFY, notified-once, 1, 60",
    "EARLY_SHARED_DELETE, no-retained-file-deleted, 1, 60",
    "OLD_ATTEMPT_ACK, consistent-cut, 75, 95",
    "SUBSUMED_SAVEPOINT_DELETE, no-retained-file-deleted, 1, 60",
    "RESTORE_SAVEPOINT_OVER_CHECKPOINT, savepoint-not-retained, 1, 60",
    "DROPPED_CHANNEL_STATE, consistent-cut, 1, 60",
    "WATERMARKS_NOT_RESTORED, event-time, 1, 60",
    "STOP_NOT_RECORDED, exactly-once, 150, 170",
    "STOP_TOLD_ONCE, liveness, 1385, 1400",
    "WAITS_ON_WALL_CLOCK, liveness, 2330, 2340",
    "END_RECORDED_AFTER_CLEANUP, exactly-once, 1003935, 1003945",
    "RESCALED_OLD_KEY_GROUPS, key-groups, 1, 60",
    "DRAIN_BARRIER_FIRST, drained, 1, 60",
    "SINK_COMMITS_FAILED_DRAIN, exactly-once, 110, 120"
  })
  void theHarnessCatchesIt(Mutation mutation, String invariant, long first, long last) {
    Simulation.Result caught = null;
    for (long seed = first; seed <= last && caught == null; seed++) {
      Simulation.Result r = Simulation.run(seed, Set.of(mutation));
      if (invariant.equals(r.invariant())) {
        caught = r;
      }
    }
    assertThat(caught).as("%s caught by a seed in %d..%d", mutation, first, last).isNotNull();
    System.out.println(mutation + " caught:\n" + caught.replay());
    assertThat(caught.invariant()).as(caught.replay()).isEqualTo(invariant);
    Simulation.Result clean = Simulation.run(caught.seed(), Set.of());
    assertThat(clean.ok()).as(clean.ok() ? "" : clean.replay()).isTrue();
  }
}
