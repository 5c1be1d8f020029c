package io.weir.simulation;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Bugs planted by hand ({@link Mutation}): some seed of a small range must break the invariant that
 * guards against each, and the same seeds must pass without it.
 */
class SimPlantedBugsTest {

  static final int SEEDS = 60;

  @ParameterizedTest
  @CsvSource({
    "DOUBLE_NOTIFY, notified-once",
    "EARLY_SHARED_DELETE, no-retained-file-deleted",
    "OLD_ATTEMPT_ACK, consistent-cut",
    "SUBSUMED_SAVEPOINT_DELETE, no-retained-file-deleted",
    "RESTORE_SAVEPOINT_OVER_CHECKPOINT, savepoint-not-retained",
    "DROPPED_CHANNEL_STATE, consistent-cut",
    "WATERMARKS_NOT_RESTORED, event-time"
  })
  void theHarnessCatchesIt(Mutation mutation, String invariant) {
    Simulation.Result caught = null;
    for (long seed = 1; seed <= SEEDS && caught == null; seed++) {
      Simulation.Result r = Simulation.run(seed, Set.of(mutation));
      if (invariant.equals(r.invariant())) {
        caught = r;
      }
    }
    assertThat(caught).as("%s caught by a seed in 1..%d", mutation, SEEDS).isNotNull();
    System.out.println(mutation + " caught:\n" + caught.replay());
    assertThat(caught.invariant()).as(caught.replay()).isEqualTo(invariant);
    Simulation.Result clean = Simulation.run(caught.seed(), Set.of());
    assertThat(clean.ok()).as(clean.ok() ? "" : clean.replay()).isTrue();
  }
}
