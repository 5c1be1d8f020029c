package io.weir.runtime.testing;

import io.weir.runtime.checkpoint.OperatorSnapshot;
import io.weir.runtime.checkpoint.RestoredOperatorState;
import java.util.ArrayList;
import java.util.List;

/**
 * Runs the script once, according to a {@link RunPlan}: fresh start, the steps (with the plan's
 * interruptions), then the end of input as the runtime handles it: {@code finish()}, the final
 * checkpoint and its completion, {@code close()}. Test thread only.
 */
final class ScriptRunner {

  /**
   * What one run produced.
   *
   * @param output what the operator emitted, as seen downstream
   * @param external what the external system holds afterwards; null when none is observed
   */
  record RunResult(List<Outputs.Emitted> output, List<?> external) {}

  private final OperatorSpec spec;
  private final HarnessSettings settings;
  private final List<Step> steps;
  private final ExternalOutput<?> external;

  ScriptRunner(
      OperatorSpec spec, HarnessSettings settings, List<Step> steps, ExternalOutput<?> external) {
    this.spec = spec;
    this.settings = settings;
    this.steps = List.copyOf(steps);
    this.external = external;
  }

  List<Step> steps() {
    return steps;
  }

  RunResult run(RunPlan plan) throws Exception {
    if (external != null) {
      external.reset();
    }
    Run run = new Run();
    try {
      run.play(plan);
    } catch (Exception | Error e) {
      run.instance.disconnect();
      try {
        run.instance.close();
      } catch (Exception | Error closing) {
        e.addSuppressed(closing);
      }
      throw e;
    }
    return new RunResult(run.output, external == null ? null : new ArrayList<>(external.read()));
  }

  /** The mutable state of one run: the live instance, the output so far, checkpoint ids. */
  private final class Run {
    final CheckpointRoundTrip storage = new CheckpointRoundTrip();
    final List<Outputs.Emitted> output = new ArrayList<>();
    long nextCheckpointId = 1;
    int attempt;
    OperatorInstance instance;

    /** The failover checkpoint, kept while the doomed instance runs on. */
    long failoverId = -1;

    OperatorSnapshot unwritten;
    RestoredOperatorState failoverState;
    int outputAtCheckpoint;
    long timeAtCheckpoint;
    long watermarkAtCheckpoint = Long.MIN_VALUE;

    Run() throws Exception {
      instance = OperatorInstance.start(spec, settings, null, attempt, 0L, output);
    }

    void play(RunPlan plan) throws Exception {
      RunPlan.Failover failover = plan.failover();
      boolean crashed = false;
      int position = 0;
      while (position <= steps.size()) {
        if (plan.restoreBefore().contains(position)) {
          snapshotAndRestore();
        }
        if (failover != null && !crashed) {
          if (position == failover.checkpointBefore()) {
            checkpointAndRunOn(failover.notified());
          }
          if (position == failover.crashBefore()) {
            crashAndRestore();
            crashed = true;
            position = failover.checkpointBefore(); // replay from the checkpoint
            continue;
          }
        }
        if (position < steps.size()) {
          instance.process(steps.get(position));
        }
        position++;
      }
      endOfInput();
    }

    /**
     * A checkpoint that completes, then a restart: the runtime closes the old instance (what it
     * emits while closing goes nowhere) and a fresh one continues from the checkpoint.
     */
    void snapshotAndRestore() throws Exception {
      long id = nextCheckpointId++;
      RestoredOperatorState state =
          storage.persistAndLoad(id, instance.snapshot(id), settings.maxParallelism());
      instance.notifyCheckpointComplete(id);
      instance.disconnect();
      instance.close();
      long watermark = instance.lastWatermark();
      instance =
          OperatorInstance.start(
              spec, settings, state, ++attempt, instance.currentProcessingTime(), output);
      restoreWatermark(watermark);
    }

    /** As sources re-emit their checkpointed watermarks after a restore. */
    void restoreWatermark(long watermark) throws Exception {
      if (watermark != Long.MIN_VALUE) {
        instance.processWatermark(watermark);
      }
    }

    /** Takes the failover checkpoint; the instance goes on, doomed. */
    void checkpointAndRunOn(boolean notified) throws Exception {
      failoverId = nextCheckpointId++;
      OperatorSnapshot snapshot = instance.snapshot(failoverId);
      if (notified) {
        failoverState = storage.persistAndLoad(failoverId, snapshot, settings.maxParallelism());
        instance.notifyCheckpointComplete(failoverId);
      } else {
        // Written only at the crash, after the doomed instance changed its state further: the
        // snapshot must not see those changes (copy-on-write), as with an asynchronous upload
        // that runs while processing goes on.
        unwritten = snapshot;
      }
      outputAtCheckpoint = output.size();
      timeAtCheckpoint = instance.currentProcessingTime();
      watermarkAtCheckpoint = instance.lastWatermark();
    }

    /**
     * The process is gone: the instance is abandoned without {@code close()} (only its state
     * backend's resources are released), its output since the checkpoint is rolled back, and a
     * fresh instance starts from the checkpoint, at the checkpoint's processing time (the script's
     * time steps are replayed too).
     */
    void crashAndRestore() throws Exception {
      instance.disconnect();
      if (failoverState == null) {
        failoverState = storage.persistAndLoad(failoverId, unwritten, settings.maxParallelism());
      }
      instance.abandon();
      output.subList(outputAtCheckpoint, output.size()).clear();
      instance =
          OperatorInstance.start(
              spec, settings, failoverState, ++attempt, timeAtCheckpoint, output);
      restoreWatermark(watermarkAtCheckpoint);
    }

    /** As the runtime ends a bounded input: finish, the final checkpoint, close. */
    void endOfInput() throws Exception {
      instance.finish();
      if (settings.finalCheckpoint()) {
        long id = nextCheckpointId++;
        // Written and read back too: the final state must survive the codec like any other.
        storage.persistAndLoad(id, instance.snapshot(id), settings.maxParallelism());
        instance.notifyCheckpointComplete(id);
      }
      instance.close();
    }
  }
}
