package io.weir.simulation;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Set;
import org.junit.jupiter.api.Test;

/** The same seed gives the same run, step for step; another seed another. */
class SimDeterminismTest {

  @Test
  void aSeedReplaysExactly() {
    for (long seed : new long[] {3, 17, 42}) {
      Simulation.Result a = Simulation.run(seed, Set.of());
      Simulation.Result b = Simulation.run(seed, Set.of());
      assertThat(b.traceHash()).as("seed %d", seed).isEqualTo(a.traceHash());
      assertThat(b.traceTail()).isEqualTo(a.traceTail());
      assertThat(b.faults()).isEqualTo(a.faults());
      assertThat(b.virtualMillis()).isEqualTo(a.virtualMillis());
    }
    assertThat(Simulation.run(4, Set.of()).traceHash())
        .isNotEqualTo(Simulation.run(5, Set.of()).traceHash());
  }
}
