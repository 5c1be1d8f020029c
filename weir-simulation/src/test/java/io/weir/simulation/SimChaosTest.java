package io.weir.simulation;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The checkpoint protocol under faults, seed by seed (see {@link Simulation}). CI runs a fixed
 * range of seeds; {@code -Dweir.chaos.long=true} runs many more, {@code -Dweir.sim.seeds=A..B}
 * those, {@code -Dweir.sim.seed=N} one.
 */
class SimChaosTest {

  static final int CI_SEEDS = 300;
  static final int LONG_SEEDS = 20_000;
  static final int MIN_FAULTS_PER_RUN = 1000;
  static final int MIN_SAVEPOINTS_PER_RUN = 100;
  static final int MIN_IN_FLIGHT_RESTORES_PER_RUN = 50;
  static final int MIN_RESCALED_RESUMES_PER_RUN = 60;
  static final int MIN_DRAINED_STOPS_COMPLETED_PER_RUN = 10;
  static final int MIN_DRAINED_STOPS_FAILED_PER_RUN = 5;

  @Test
  void everySeedKeepsTheInvariants() {
    String one = System.getProperty("weir.sim.seed");
    String range = System.getProperty("weir.sim.seeds"); // A..B, both included
    long first;
    long count;
    if (one != null) {
      first = Long.parseLong(one);
      count = 1;
    } else if (range != null) {
      String[] ends = range.split("\\.\\.", 2);
      first = Long.parseLong(ends[0]);
      count = Long.parseLong(ends[1]) - first + 1;
    } else if (Boolean.getBoolean("weir.chaos.long")) {
      first = 1_000_000;
      count = LONG_SEEDS;
    } else {
      first = 1;
      count = CI_SEEDS;
    }
    // -Dweir.sim.mutation=NAME plants a bug (see Mutation), to study how a seed catches it.
    String mutation = System.getProperty("weir.sim.mutation");
    Set<Mutation> planted = mutation == null ? Set.of() : Set.of(Mutation.valueOf(mutation));
    long start = System.nanoTime();
    int faults = 0;
    int checkpoints = 0;
    int savepoints = 0;
    int savepointsFailed = 0;
    int resumes = 0;
    int rescaledResumes = 0;
    int restarts = 0;
    int unaligned = 0;
    int inFlightCheckpoints = 0;
    int inFlightRestores = 0;
    int stops = 0;
    int stopsCompleted = 0;
    int drainedStops = 0;
    int drainedStopsCompleted = 0;
    int drainedStopsFailed = 0;
    Map<String, Integer> byKind = new TreeMap<>();
    List<String> failures = new ArrayList<>();
    for (long seed = first; seed < first + count; seed++) {
      Simulation.Result r = Simulation.run(seed, planted);
      faults += r.faults();
      checkpoints += r.completed();
      savepoints += r.savepoints();
      savepointsFailed += r.savepointsFailed();
      resumes += r.resumes();
      rescaledResumes += r.rescaledResumes();
      restarts += r.restarts();
      unaligned += r.unaligned() ? 1 : 0;
      inFlightCheckpoints += r.inFlightCheckpoints();
      inFlightRestores += r.inFlightRestores();
      stops += r.stops();
      stopsCompleted += r.stopsCompleted();
      drainedStops += r.drainedStops();
      drainedStopsCompleted += r.drainedStopsCompleted();
      drainedStopsFailed += r.drainedStopsFailed();
      r.faultsByKind().forEach((k, v) -> byKind.merge(k, v, Integer::sum));
      if (!r.ok() && failures.size() < 5) {
        failures.add(r.replay());
      }
      if (one != null) {
        System.out.println(r.replay());
      }
    }
    long millis = (System.nanoTime() - start) / 1_000_000;
    String summary =
        String.format(
            "weir-simulation: %d seeds, %d faults injected %s, %d checkpoints completed, %d"
                + " savepoints completed (%d failed or expired), %d resumes from a savepoint (%d"
                + " at another parallelism), %d restarts; %d seeds unaligned, %d checkpoints"
                + " with in-flight data, %d task restores replaying in-flight data; %d"
                + " stop-with-savepoints (%d completed and ended the job), %d of them with drain"
                + " (%d completed and ended the job, %d failed); %d ms",
            count,
            faults,
            byKind,
            checkpoints,
            savepoints,
            savepointsFailed,
            resumes,
            rescaledResumes,
            restarts,
            unaligned,
            inFlightCheckpoints,
            inFlightRestores,
            stops,
            stopsCompleted,
            drainedStops,
            drainedStopsCompleted,
            drainedStopsFailed,
            millis);
    System.out.println(summary);
    System.err.println(summary);
    assertThat(failures).as(summary).isEmpty();
    if (one == null && range == null) {
      assertThat(faults).as(summary).isGreaterThanOrEqualTo(MIN_FAULTS_PER_RUN);
      assertThat(savepoints).as(summary).isGreaterThanOrEqualTo(MIN_SAVEPOINTS_PER_RUN);
      assertThat(inFlightRestores)
          .as(summary)
          .isGreaterThanOrEqualTo(MIN_IN_FLIGHT_RESTORES_PER_RUN);
      assertThat(rescaledResumes).as(summary).isGreaterThanOrEqualTo(MIN_RESCALED_RESUMES_PER_RUN);
      assertThat(drainedStopsCompleted)
          .as(summary)
          .isGreaterThanOrEqualTo(MIN_DRAINED_STOPS_COMPLETED_PER_RUN);
      assertThat(drainedStopsFailed)
          .as(summary)
          .isGreaterThanOrEqualTo(MIN_DRAINED_STOPS_FAILED_PER_RUN);
    }
  }
}
