package io.weir.runtime.testing;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * Where one run of the script interrupts the operator. Positions count steps from 0: position
 * {@code i} is just before step {@code i}, and position {@code n} (the number of steps) is after
 * the last step, before {@code finish()}.
 *
 * @param name what the run does, for failure messages
 * @param restoreBefore positions where the run takes a checkpoint, has it complete, closes the
 *     instance and continues in a fresh instance restored from the checkpoint's bytes
 * @param failover a crash scenario instead, or null
 */
record RunPlan(String name, Set<Integer> restoreBefore, Failover failover) {

  /** Beyond this many steps, failover runs try a sample of crash points per checkpoint. */
  static final int ALL_CRASH_POINTS_UP_TO = 40;

  /**
   * The system property that makes {@code verify()} try a sample of the positions (the first, the
   * second, the middle and the last) where it otherwise tries them all: for the single restores,
   * and for the checkpoints and crash points of the failover runs at any length. The run with a
   * restore before every position stays whole, so every position is still restored at. It is for
   * suites whose every run opens RocksDB instances: weir-state-rocksdb sets it for the runtime's
   * harness suites (they run whole on the heap backend in weir-runtime), and {@code
   * -Dweir.test.matrix.full=true} turns it off.
   */
  static final String SAMPLED = "weir.harness.sampled";

  /**
   * A checkpoint, more steps, then a crash: the instance is abandoned without {@code close()} (its
   * process is gone), its output since the checkpoint is discarded (downstream rolls back to the
   * checkpoint too), and a fresh instance restored from the checkpoint replays the steps from
   * there. External systems (a sink's) are not rolled back.
   *
   * @param checkpointBefore where the checkpoint is taken
   * @param crashBefore where the crash happens, after the checkpoint
   * @param notified true when the checkpoint's completion reaches the instance before the crash;
   *     false when the crash comes first (the restore must then finish what completion would have)
   */
  record Failover(int checkpointBefore, int crashBefore, boolean notified) {}

  RunPlan {
    restoreBefore = Set.copyOf(restoreBefore);
  }

  static RunPlan uninterrupted() {
    return new RunPlan("the uninterrupted run", Set.of(), null);
  }

  static RunPlan restoreBefore(List<Step> steps, int... positions) {
    Set<Integer> at = new TreeSet<>();
    List<String> where = new ArrayList<>();
    for (int p : positions) {
      if (p < 0 || p > steps.size()) {
        throw new IllegalArgumentException(
            "Restore position "
                + p
                + " is outside the script: positions go from 0 (before the first step) to "
                + steps.size()
                + " (after the last step, before finish())");
      }
      at.add(p);
      where.add(position(steps, p));
    }
    return new RunPlan(
        "a snapshot + restore into a fresh instance was injected " + String.join(", ", where),
        at,
        null);
  }

  static RunPlan restoreBeforeEvery(List<Step> steps) {
    Set<Integer> at = new TreeSet<>();
    for (int p = 0; p <= steps.size(); p++) {
      at.add(p);
    }
    return new RunPlan(
        "a snapshot + restore into a fresh instance was injected before every step and before"
            + " finish()",
        at,
        null);
  }

  static RunPlan failover(List<Step> steps, int checkpoint, int crash, boolean notified) {
    return new RunPlan(
        "a checkpoint was taken "
            + position(steps, checkpoint)
            + (notified ? ", completed and notified" : ", completed but not yet notified")
            + ", then the operator crashed "
            + position(steps, crash)
            + " and a fresh instance restored from that checkpoint replayed the steps from "
            + checkpoint,
        Set.of(),
        new Failover(checkpoint, crash, notified));
  }

  /**
   * Every run {@code verify()} makes, the uninterrupted one first: a restore before each position
   * (or a {@link #SAMPLED sample} of them), a restore before every position, and (if enabled) the
   * failover scenarios.
   */
  static List<RunPlan> all(List<Step> steps, boolean failover) {
    int n = steps.size();
    List<RunPlan> plans = new ArrayList<>();
    boolean sampled = Boolean.getBoolean(SAMPLED) && !Boolean.getBoolean("weir.test.matrix.full");
    plans.add(uninterrupted());
    for (int p : sampled ? sample(0, n) : range(0, n)) {
      plans.add(restoreBefore(steps, p));
    }
    plans.add(restoreBeforeEvery(steps));
    if (failover) {
      for (int checkpoint : sampled ? sample(0, n - 1) : range(0, n - 1)) {
        Set<Integer> crashes =
            sampled || n > ALL_CRASH_POINTS_UP_TO
                ? sample(checkpoint + 1, n)
                : range(checkpoint + 1, n);
        for (int crash : crashes) {
          plans.add(failover(steps, checkpoint, crash, true));
          plans.add(failover(steps, checkpoint, crash, false));
        }
      }
    }
    return plans;
  }

  /** {@code from} to {@code to}, both included. */
  private static Set<Integer> range(int from, int to) {
    Set<Integer> points = new TreeSet<>();
    for (int p = from; p <= to; p++) {
      points.add(p);
    }
    return points;
  }

  /** The first, the second, the middle and the last of {@code from} to {@code to}. */
  private static Set<Integer> sample(int from, int to) {
    Set<Integer> points = new TreeSet<>();
    if (from <= to) {
      points.add(from);
      points.add(Math.min(to, from + 1));
      points.add((from + to) / 2);
      points.add(to);
    }
    return points;
  }

  /** "before step 3 (element "a" on input 1)" or "after the last step, before finish()". */
  static String position(List<Step> steps, int p) {
    if (steps.isEmpty()) {
      return "before finish() (the script has no steps)";
    }
    return p == steps.size()
        ? "after the last step (" + (steps.size() - 1) + "), before finish()"
        : "before step " + p + " (" + steps.get(p).describe() + ")";
  }
}
