package io.weir.runtime.testing;

import io.weir.runtime.testing.ScriptRunner.RunResult;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * What every harness shares: the script's steps, the expected output, the settings, and {@link
 * #verify()}. Build one through {@link OperatorHarness}; a harness is used by one test thread.
 *
 * @param <OUT> the operator's output type
 * @param <H> the concrete harness, returned by the fluent methods
 */
public abstract class AbstractHarness<OUT, H extends AbstractHarness<OUT, H>> {

  /** Failed runs listed by name in a failure message, beyond the first. */
  private static final int LISTED_FAILURES = 10;

  /** Steps listed in a failure message. */
  private static final int LISTED_STEPS = 40;

  OperatorSpec spec;
  HarnessSettings settings = HarnessSettings.DEFAULT;
  final List<Step> steps = new ArrayList<>();
  private List<OUT> expectedOutput;
  private boolean outputOrdered = true;
  private ExternalOutput<?> external;
  private List<?> expectedExternal;
  private boolean externalOrdered = true;

  AbstractHarness(OperatorSpec spec) {
    this.spec = spec;
  }

  abstract H self();

  /** Appends a step that moves processing time to {@code time}; due timers fire. */
  public final H advanceProcessingTime(long time) {
    steps.add(new Step.AdvanceProcessingTime(time));
    return self();
  }

  /**
   * Appends a step that moves event time to {@code timestamp}, as a watermark arriving at the
   * operator: due event-time timers fire. After a restore the harness hands the restored instance
   * the last watermark before the checkpoint again, as the runtime's sources re-emit their
   * checkpointed watermarks.
   */
  public final H watermark(long timestamp) {
    steps.add(new Step.Watermark(timestamp));
    return self();
  }

  /** Every run must emit exactly these records, in this order. */
  public final H expectOutput(List<? extends OUT> expected) {
    this.expectedOutput = new ArrayList<>(Objects.requireNonNull(expected, "expected"));
    this.outputOrdered = true;
    return self();
  }

  /** Every run must emit exactly these records, in any order (counted as a multiset). */
  public final H expectOutputInAnyOrder(List<? extends OUT> expected) {
    expectOutput(expected);
    this.outputOrdered = false;
    return self();
  }

  /**
   * After every run, {@code system} must hold exactly {@code expected}, in this order. Use it for
   * sinks: a two-phase-commit sink's committed records must be there exactly once, however the run
   * was interrupted.
   */
  public final <T> H expectExternalOutput(ExternalOutput<T> system, List<? extends T> expected) {
    this.external = Objects.requireNonNull(system, "system");
    this.expectedExternal = new ArrayList<>(Objects.requireNonNull(expected, "expected"));
    this.externalOrdered = true;
    return self();
  }

  /** {@link #expectExternalOutput} in any order (counted as a multiset). */
  public final <T> H expectExternalOutputInAnyOrder(
      ExternalOutput<T> system, List<? extends T> expected) {
    expectExternalOutput(system, expected);
    this.externalOrdered = false;
    return self();
  }

  /** The number of key groups; 128 by default. */
  public final H maxParallelism(int maxParallelism) {
    settings = settings.withMaxParallelism(maxParallelism);
    return self();
  }

  /**
   * Plays subtask {@code index} of {@code parallelism}: its task info says so and its keyed state
   * owns only that subtask's key groups (every key in the script must belong to them). Restores
   * keep the parallelism. Subtask 0 of 1 by default.
   */
  public final H subtask(int index, int parallelism) {
    settings = settings.withSubtask(index, parallelism);
    return self();
  }

  /**
   * Leaves out the failover runs (checkpoint, run on, crash, restore, replay). Needed for an
   * operator whose external effects are at-least-once by design, such as a plain sink function.
   */
  public final H withoutFailover() {
    settings = settings.withFailover(false);
    return self();
  }

  /** Ends the runs without the final checkpoint the runtime takes after {@code finish()}. */
  public final H withoutFinalCheckpoint() {
    settings = settings.withFinalCheckpoint(false);
    return self();
  }

  /**
   * Runs the script in every way and checks that each run gives the expected output (or, without an
   * expectation, the uninterrupted run's output, timestamps included):
   *
   * <ol>
   *   <li>uninterrupted;
   *   <li>for every position i (before each step, and after the last step before {@code finish()}):
   *       a checkpoint before i, its completion notified, the instance closed, and a fresh instance
   *       restored from the checkpoint's bytes going on from i;
   *   <li>the same before every position in one run;
   *   <li>unless {@link #withoutFailover()}: for every checkpoint position i and later crash
   *       position j, a checkpoint before i (notified, or not yet notified), steps i..j-1, a crash
   *       that abandons the instance and discards its output since the checkpoint, and a fresh
   *       instance restored from the checkpoint replaying from i.
   * </ol>
   *
   * Every run ends as a bounded input ends: {@code finish()}, a final checkpoint (unless {@link
   * #withoutFinalCheckpoint()}), {@code close()}.
   *
   * @throws HarnessVerificationError naming the first run that failed and where it was interrupted
   */
  public final void verify() {
    ScriptRunner runner = runner();
    List<RunPlan> plans = RunPlan.all(runner.steps(), settings.failover());
    RunResult baseline = null;
    List<String> failed = new ArrayList<>();
    String firstMessage = null;
    Throwable firstCause = null;
    for (int i = 0; i < plans.size(); i++) {
      RunPlan plan = plans.get(i);
      boolean isBaseline = i == 0;
      RunResult result;
      String problem;
      Throwable cause = null;
      try {
        result = runner.run(plan);
        problem = check(result, isBaseline ? null : baseline);
      } catch (Exception | AssertionError e) {
        result = null;
        cause = e;
        problem = "the run failed with " + e;
      }
      if (isBaseline) {
        baseline = result;
      }
      if (problem != null) {
        failed.add(plan.name());
        if (firstMessage == null) {
          firstMessage = headline(plan, isBaseline) + ":\n  " + problem;
          firstCause = cause;
        }
        if (isBaseline && result == null) {
          break; // nothing to compare the other runs with
        }
      }
    }
    if (firstMessage != null) {
      throw new HarnessVerificationError(
          failureMessage(firstMessage, failed, plans.size(), runner.steps()),
          failed.get(0),
          failed.subList(1, failed.size()),
          firstCause);
    }
  }

  /** The output of the uninterrupted run, for a look before writing the expectation. */
  public final List<OUT> runUninterrupted() {
    return valuesOf(RunPlan.uninterrupted());
  }

  /**
   * The output of one run with a snapshot + restore before each of {@code positions} (0 before the
   * first step, the number of steps before {@code finish()}): for looking at one injection point.
   */
  public final List<OUT> runWithRestoresBefore(int... positions) {
    return valuesOf(RunPlan.restoreBefore(List.copyOf(steps), positions));
  }

  @SuppressWarnings("unchecked")
  private List<OUT> valuesOf(RunPlan plan) {
    try {
      return (List<OUT>) (List<?>) Outputs.values(runner().run(plan).output());
    } catch (Exception e) {
      throw new IllegalStateException(
          "Operator '" + spec.name() + "' failed in " + plan.name() + ": " + e, e);
    }
  }

  private ScriptRunner runner() {
    return new ScriptRunner(spec, settings, steps, external);
  }

  /** What is wrong with {@code result}, or null; {@code baseline} is null for the baseline. */
  private String check(RunResult result, RunResult baseline) {
    List<String> problems = new ArrayList<>();
    if (expectedOutput != null) {
      List<Object> values = Outputs.values(result.output());
      String d = Outputs.difference(expectedOutput, values, outputOrdered);
      if (d != null) {
        problems.add(
            "output differs from the expected output: "
                + d
                + "\n    expected "
                + Outputs.showList(expectedOutput)
                + "\n    actual   "
                + Outputs.showList(values));
      }
    }
    if (problems.isEmpty() && baseline != null) {
      String d = Outputs.difference(baseline.output(), result.output(), outputOrdered);
      if (d != null) {
        problems.add(
            "output differs from the uninterrupted run's: "
                + d
                + "\n    uninterrupted "
                + Outputs.showList(baseline.output())
                + "\n    this run      "
                + Outputs.showList(result.output()));
      }
    }
    if (external != null) {
      String d =
          expectedExternal != null
              ? Outputs.difference(expectedExternal, result.external(), externalOrdered)
              : null;
      String against = "the expected external output";
      List<?> reference = expectedExternal;
      if (d == null && baseline != null) {
        d = Outputs.difference(baseline.external(), result.external(), externalOrdered);
        against = "the uninterrupted run's external output";
        reference = baseline.external();
      }
      if (d != null) {
        problems.add(
            "external output differs from "
                + against
                + ": "
                + d
                + "\n    expected "
                + Outputs.showList(reference)
                + "\n    actual   "
                + Outputs.showList(result.external()));
      }
    }
    return problems.isEmpty() ? null : String.join("\n  ", problems);
  }

  private String headline(RunPlan plan, boolean isBaseline) {
    return isBaseline
        ? "Operator '" + spec.name() + "' failed even in the uninterrupted run"
        : "Operator '" + spec.name() + "' diverged when " + plan.name();
  }

  private String failureMessage(String first, List<String> failed, int runs, List<Step> script) {
    StringBuilder b = new StringBuilder(first);
    b.append("\n").append(failed.size()).append(" of ").append(runs).append(" runs failed");
    if (failed.size() > 1) {
      b.append("; the others:");
      for (int i = 1; i < failed.size() && i <= LISTED_FAILURES; i++) {
        b.append("\n  - ").append(failed.get(i));
      }
      if (failed.size() - 1 > LISTED_FAILURES) {
        b.append("\n  - and ").append(failed.size() - 1 - LISTED_FAILURES).append(" more");
      }
    }
    b.append("\nThe script, steps numbered from 0:");
    for (int i = 0; i < script.size() && i < LISTED_STEPS; i++) {
      b.append("\n  ").append(i).append(": ").append(script.get(i).describe());
    }
    if (script.size() > LISTED_STEPS) {
      b.append("\n  ... ").append(script.size() - LISTED_STEPS).append(" more");
    }
    return b.toString();
  }
}
