package io.weir.simulation;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;

/**
 * The simulation with reads that fail now and then, as a storage that times out does. Weir takes a
 * read that fails while it restores for a corrupt checkpoint, never tries that checkpoint again and
 * falls back to an older one (docs/reliability.md, "Not checked yet"): seeds 10, 21 and 41 break
 * consistent-cut, liveness and exactly-once. Enabled once that is fixed.
 */
class SimKnownBugTest {

  @Test
  @Disabled(
      "known bug: a transient read failure during a restore marks the checkpoint unrestorable")
  void aReadThatFailsWhileRestoringIsRetried() {
    List<String> failures = new ArrayList<>();
    for (long seed = 1; seed <= SimChaosTest.CI_SEEDS; seed++) {
      Simulation.Result r = Simulation.run(seed, Set.of(), true);
      if (!r.ok() && failures.size() < 3) {
        failures.add(r.replay());
      }
    }
    assertThat(failures).isEmpty();
  }
}
