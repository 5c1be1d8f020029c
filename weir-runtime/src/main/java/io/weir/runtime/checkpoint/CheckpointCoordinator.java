package io.weir.runtime.checkpoint;

import io.weir.api.CheckpointStatistics;
import io.weir.runtime.checkpoint.CheckpointFinalizer.AbortReason;
import io.weir.runtime.storage.CheckpointStorageCoordinatorView;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decides when checkpoints start, completes them when every task acknowledged, aborts them on
 * timeout or decline, and fails the job when too many fail in a row. Holds no threads and reads no
 * clock: time, timers and messages to tasks go through its {@link CheckpointCoordinatorContext}, so
 * tests drive it step by step. Its state is guarded by its lock: acknowledgements arrive from
 * tasks' snapshot threads and timers from the timer thread. No storage I/O happens under the lock:
 * a completing checkpoint writes its metadata after the lock is released (acknowledgements of other
 * checkpoints go on meanwhile), and deletes run on the context's I/O executor, so a slow store
 * never holds up the protocol.
 *
 * <p>Its parts, as in Flink, each without threads or clocks and called under its lock: {@link
 * CheckpointTriggerDecider} says when the next checkpoint may start, a {@link PendingCheckpoint}
 * (or {@link PendingSavepoint}) collects one checkpoint's acknowledgements, {@link CheckpointPlan}
 * says which subtasks a checkpoint waits for, {@link CheckpointFinalizer} ends a checkpoint
 * (completes and retains it, or aborts it) and owns the completed checkpoints, {@link
 * CheckpointFailureManager} counts failures and says when the job must fail, {@link
 * CheckpointFlightRecorder} keeps the statistics, and {@link SinkCommitHistory} adds the sink
 * commits reported after a checkpoint completed. The coordinator itself triggers checkpoints and
 * keeps the pending ones until they end; it ties its parts to the timers, the tasks and the
 * storage.
 */
public final class CheckpointCoordinator {

  private static final Logger LOG = LoggerFactory.getLogger(CheckpointCoordinator.class);

  /**
   * One subtask that must acknowledge.
   *
   * @param vertex index of its job vertex
   * @param subtask its subtask index
   */
  public record TaskKey(int vertex, int subtask) {}

  /**
   * An operator of the job, so a completed checkpoint lists every one.
   *
   * @param operatorId stable id
   * @param name for messages
   * @param vertex its job vertex
   * @param parallelism its parallelism
   * @param maxParallelism number of key groups
   */
  public record OperatorInfo(
      String operatorId, String name, int vertex, int parallelism, int maxParallelism) {}

  private final String jobId;
  private final CheckpointSettings settings;
  private final CheckpointStorageCoordinatorView storage;
  private final CheckpointCoordinatorContext context;
  private final TreeMap<Long, PendingCheckpoint> pending = new TreeMap<>();
  private final CheckpointIDCounter ids;
  private final CheckpointPlan plan;
  private final CheckpointFlightRecorder recorder;

  /** The sink commits reported after their checkpoint completed, and the history's rewrite. */
  private final SinkCommitHistory sinkCommits;

  private final CheckpointTriggerDecider triggers;
  private final CheckpointFinalizer finalizer;
  private boolean running;

  private Runnable cancelNextTrigger;

  /**
   * Cancels the next notification of the final checkpoint (see {@link #scheduleFinalNotification}).
   */
  private Runnable cancelFinalNotification;

  private boolean triggerSoonRequested;

  /** A full checkpoint was asked for ({@link #triggerCheckpointSoon}): the next one is full. */
  private boolean fullCheckpointRequested;

  /** How periodic checkpoints align; savepoints always align. */
  private CheckpointOptions checkpointOptions =
      CheckpointOptions.checkpoint(BarrierHandler.Alignment.ALIGNED);

  public CheckpointCoordinator(
      String jobId,
      CheckpointSettings settings,
      List<OperatorInfo> operators,
      CheckpointStorageCoordinatorView storage,
      CheckpointCoordinatorContext context,
      long lastCheckpointId,
      List<CompletedCheckpoint> restoredCompleted) {
    this(
        jobId,
        settings,
        operators,
        storage,
        context,
        CheckpointIDCounter.inMemory(lastCheckpointId),
        CompletedCheckpointStore.inMemory(settings.numRetained(), restoredCompleted));
  }

  /** A coordinator with the given id counter and completed-checkpoint store. */
  public CheckpointCoordinator(
      String jobId,
      CheckpointSettings settings,
      List<OperatorInfo> operators,
      CheckpointStorageCoordinatorView storage,
      CheckpointCoordinatorContext context,
      CheckpointIDCounter ids,
      CompletedCheckpointStore completed) {
    this.jobId = jobId;
    this.settings = settings;
    this.plan = new CheckpointPlan(operators);
    this.storage = storage;
    this.context = context;
    this.ids = ids;
    this.recorder =
        new CheckpointFlightRecorder(
            jobId, settings.historySize(), storage, context::relativeTimeMillis);
    this.sinkCommits = new SinkCommitHistory(this, recorder, this::retained, context);
    this.triggers =
        new CheckpointTriggerDecider(
            settings.intervalMillis(), settings.minPauseMillis(), settings.maxConcurrent());
    this.finalizer =
        new CheckpointFinalizer(
            jobId,
            settings,
            operators,
            storage,
            context,
            this,
            new FinalizerView(),
            ids,
            plan,
            triggers,
            recorder,
            completed);
  }

  /** What the finalizer sees of this coordinator; every call under its lock. */
  private final class FinalizerView implements CheckpointFinalizer.Coordinator {
    @Override
    public boolean isPending(PendingCheckpoint p) {
      return pending.get(p.id) == p;
    }

    @Override
    public void removePending(PendingCheckpoint p) {
      pending.remove(p.id);
    }

    @Override
    public List<PendingCheckpoint> pendingBefore(long checkpointId) {
      return new ArrayList<>(pending.headMap(checkpointId).values());
    }

    @Override
    public List<PendingCheckpoint> pendingAfter(long checkpointId) {
      return new ArrayList<>(pending.tailMap(checkpointId, false).values());
    }

    @Override
    public void jobEnds(long finalCheckpointId) {
      stopTriggering(); // the job ends: no checkpoint after its stop or its final checkpoint
      scheduleFinalNotification(finalCheckpointId);
    }

    @Override
    public void failJob(CheckpointException cause) {
      running = false;
      context.failJob(cause);
    }

    @Override
    public void checkpointEnded() {
      if (running && cancelNextTrigger == null) {
        scheduleTrigger(triggers.delayAfterEnd());
      }
      serveTriggerSoon();
    }
  }

  /**
   * The stop-with-savepoint that completed, or null: its tasks were told to commit the savepoint's
   * side effects, so the job must never restore a checkpoint older than that savepoint. Recorded in
   * the completed-checkpoint store, so a job master that took the job over knows it too. Without
   * the coordinator's lock (the store answers from memory).
   */
  public CompletedStop completedStop() {
    return finalizer.completedStop();
  }

  /** How the barriers of periodic checkpoints align (from the job's settings); before start. */
  public synchronized void setCheckpointAlignment(BarrierHandler.Alignment alignment) {
    this.checkpointOptions = CheckpointOptions.checkpoint(alignment);
  }

  /**
   * The job was restored in {@code CLAIM} mode from a checkpoint it now owns: {@code discard}
   * deletes that checkpoint, which runs (on the I/O executor) once {@code num-retained} newer
   * checkpoints completed, as it would for a checkpoint of the job's own.
   */
  public synchronized void claimRestoredCheckpoint(Runnable discard) {
    finalizer.claimRestoredCheckpoint(discard);
  }

  /** The subtasks of the current attempt; called at every (re)deployment. */
  public synchronized void setTasks(Set<TaskKey> tasks) {
    plan.attemptDeployed(tasks);
  }

  /**
   * A subtask ended its input and waits for a final checkpoint, one taken after every subtask had
   * ended its input ({@link #isFinal}). Once the last subtask has, that checkpoint is triggered as
   * soon as min pause allows, whatever the interval says; a checkpoint triggered while some subtask
   * still had input could not be final, so none is triggered before (when the sources end one after
   * another, a single checkpoint ends the job).
   */
  public synchronized void reachedEndOfInput(TaskKey task) {
    if (plan.inputEnded(task, ids.get())) {
      triggerSoon();
    }
  }

  /**
   * Starts periodic triggering; for an attempt whose stop-with-savepoint completed already (adopted
   * by a job master that took the job over), only the stop's notification instead.
   */
  public synchronized void start() {
    CompletedStop stop = finalizer.completedStop();
    if (stop != null) {
      scheduleFinalNotification(stop.savepointId());
      return;
    }
    running = true;
    triggers.attemptStarted();
    scheduleTrigger(triggers.initialDelay());
    serveTriggerSoon();
  }

  /**
   * Starts as the coordinator of an attempt adopted from a lost job master (high availability).
   * First the tasks hear that the checkpoints that job master triggered and did not record are
   * aborted (one may be in flight), and that the newest recorded checkpoint completed, since its
   * notifications may not all have gone out before that job master was lost (a task ignores a
   * second notification of one checkpoint); then the next checkpoint is triggered as soon as the
   * minimum pause allows, rather than an interval later, since the sinks hold everything since the
   * newest recorded one uncommitted, and periodic triggering goes on from there.
   */
  public void takeOver() {
    finalizer.notifyEndsOwedByLostLeader();
    start();
    triggerSoon();
  }

  /**
   * Stops triggering and aborts every pending checkpoint (failover, cancel, end of job). A
   * checkpoint every task acknowledged whose metadata is being written is not aborted: its files
   * are whole and its cut consistent, and once its metadata is on disk it is retained, as Flink
   * completes a checkpoint whose finalization began (its tasks hear nothing of it; a sink commits
   * its transactions when the job restores from it). Whoever then reads the retained checkpoints (a
   * restore, the retention policy) calls {@link #awaitCommits()} first.
   */
  public synchronized void stop() {
    stopTriggering();
    for (PendingCheckpoint p : new ArrayList<>(pending.values())) {
      finalizer.abort(p, AbortReason.JOB_STOPPED, "the job attempt ended");
    }
    finalizer.attemptEnded();
  }

  /**
   * As {@link #stop()}, for a job master that no longer leads (Flink's suspend): a checkpoint whose
   * metadata is being written is given up rather than retained, since the next leader owns the
   * completed-checkpoint store now.
   */
  public synchronized void suspend() {
    finalizer.stopLeading();
    stop();
  }

  /**
   * Waits until no checkpoint's metadata is being written, so that the retained checkpoints are
   * final: a restore picks the newest of them, and the retention policy keeps or deletes them, only
   * after this. The writes end on their own (they do not need the caller's locks).
   */
  public void awaitCommits() {
    finalizer.awaitCommits();
  }

  /**
   * True when completed checkpoint {@code checkpointId} was taken after every subtask had ended its
   * input: a bounded job may finish once such a checkpoint completed.
   */
  public synchronized boolean isFinal(long checkpointId) {
    return finalizer.isFinal(checkpointId);
  }

  /** The newest completed checkpoint, or null. */
  public synchronized CompletedCheckpoint latestCompleted() {
    return finalizer.latestCompleted();
  }

  /**
   * Deletes every retained checkpoint and the shared files they use, for a job that ends with its
   * checkpoints not retained.
   */
  public synchronized void discardRetained() {
    finalizer.discardRetained();
  }

  /**
   * Deletes, on the I/O executor after the deletes already queued, what in the job's storage no
   * completed checkpoint references: leftovers of the attempts before a restore.
   */
  public void discardOrphanedState() {
    discardOrphanedState(false);
  }

  /**
   * As {@link #discardOrphanedState()}; with {@code nothingInProgress} (the job has ended) also the
   * files of checkpoints that were in progress when it ended: uploads that finished after their
   * checkpoint was aborted, which no acknowledgement named.
   */
  public void discardOrphanedState(boolean nothingInProgress) {
    finalizer.discardOrphanedState(nothingInProgress);
  }

  /** The files of the shared-state registry, for tests. */
  public synchronized Set<String> sharedStatePaths() {
    return finalizer.sharedStatePaths();
  }

  /** The retained completed checkpoints, newest first. */
  public synchronized List<CompletedCheckpoint> retained() {
    return finalizer.retained();
  }

  public synchronized int numberOfPending() {
    return pending.size();
  }

  public synchronized int consecutiveFailures() {
    return finalizer.consecutiveFailures();
  }

  public synchronized long lastCheckpointId() {
    return ids.get();
  }

  /**
   * Tells the tasks again, every checkpoint interval until the attempt ends, that the final
   * checkpoint (or the stop-with-savepoint) {@code checkpointId} completed: a task that missed the
   * notification would wait for good, since after it nothing is triggered, and no later
   * checkpoint's notification makes up for it. A task ignores a second one.
   */
  private void scheduleFinalNotification(long checkpointId) {
    long every = triggers.periodic() ? settings.intervalMillis() : settings.timeoutMillis();
    cancelFinalNotification = context.schedule(() -> notifyFinalAgain(checkpointId), every);
  }

  private synchronized void notifyFinalAgain(long checkpointId) {
    if (cancelFinalNotification == null) {
      return; // the attempt ended
    }
    context.notifyComplete(checkpointId);
    scheduleFinalNotification(checkpointId);
  }

  private void stopTriggering() {
    if (cancelFinalNotification != null) {
      cancelFinalNotification.run();
      cancelFinalNotification = null;
    }
    running = false;
    if (cancelNextTrigger != null) {
      cancelNextTrigger.run();
      cancelNextTrigger = null;
    }
  }

  private void scheduleTrigger(long delay) {
    if (!running || !triggers.periodic()) {
      return; // checkpointing off: only the savepoints asked for
    }
    if (cancelNextTrigger != null) {
      cancelNextTrigger.run();
    }
    cancelNextTrigger = context.schedule(this::onTriggerTimer, Math.max(0, delay));
  }

  private synchronized void onTriggerTimer() {
    cancelNextTrigger = null;
    if (!running) {
      return;
    }
    CheckpointTriggerDecider.Decision decision =
        triggers.onTimer(pending.size() + finalizer.committing(), context.relativeTimeMillis());
    if (decision instanceof CheckpointTriggerDecider.TriggerNow trigger) {
      triggerCheckpoint(context.currentTimeMillis());
      scheduleTrigger(trigger.nextTimerDelayMillis());
    } else if (decision instanceof CheckpointTriggerDecider.RetryAfter retry) {
      scheduleTrigger(retry.delayMillis());
    }
    // WaitForEnd: the completion or abort of a checkpoint schedules the next attempt.
  }

  /**
   * Starts the next checkpoint as soon as min pause allows, whatever the interval says (a task
   * waits for its final checkpoint). A request made while a checkpoint is pending, or before {@link
   * #start}, is remembered and served when possible.
   */
  public synchronized void triggerSoon() {
    if (running && pending.isEmpty() && finalizer.committing() == 0) {
      triggerSoonRequested = false;
      scheduleTrigger(triggers.delayUntilPauseOver(context.relativeTimeMillis()));
    } else {
      triggerSoonRequested = true;
    }
  }

  /**
   * A checkpoint on request (Flink's {@code triggerCheckpoint(CheckpointType)}): the next
   * checkpoint starts as soon as min pause allows, as {@link #triggerSoon}; with {@code full} it
   * refers to no file an earlier checkpoint uploaded ({@link
   * CheckpointOptions.Type#FULL_CHECKPOINT}).
   *
   * @return the id the next checkpoint will have at least: the first checkpoint (not savepoint)
   *     with this id or a higher one answers the request
   */
  public synchronized long triggerCheckpointSoon(boolean full) {
    fullCheckpointRequested |= full;
    triggerSoon();
    return ids.get() + 1; // not one pending now: that one may have started before the request
  }

  /** Serves a remembered {@link #triggerSoon} once nothing is pending. */
  private void serveTriggerSoon() {
    if (triggerSoonRequested && running && pending.isEmpty() && finalizer.committing() == 0) {
      triggerSoon();
    }
  }

  private void triggerCheckpoint(long now) {
    Set<TaskKey> expected = plan.tasksToWaitFor();
    if (expected.isEmpty()) {
      return;
    }
    CheckpointOptions options =
        fullCheckpointRequested
            ? CheckpointOptions.fullCheckpoint(checkpointOptions.alignment())
            : checkpointOptions;
    fullCheckpointRequested = false;
    trigger(
        new PendingCheckpoint(
            ids.getAndIncrement(),
            now,
            context.relativeTimeMillis(),
            expected,
            options,
            finalizer.epoch()));
  }

  private void trigger(PendingCheckpoint p) {
    long id = p.id;
    pending.put(id, p);
    recorder.inProgress(p);
    p.setTimeout(context.schedule(() -> onTimeout(id), settings.timeoutMillis()));
    if (p.options.type() == CheckpointOptions.Type.FULL_CHECKPOINT) {
      LOG.info("Triggering full checkpoint {} of job {}", id, jobId);
    } else {
      LOG.debug("Triggering {} {} of job {}", p.options.type(), id, jobId);
    }
    context.triggerSources(id, p.timestamp, p.options);
  }

  /**
   * Triggers a savepoint into {@code directory} now, whatever the interval, min pause and max
   * concurrent checkpoints say (as Flink's savepoints). Always aligned; its state is written in
   * full, in the canonical format, by the tasks straight into a directory of its own below {@code
   * directory}, named here (nothing goes to the job's checkpoint storage), with its metadata last.
   * Weir never deletes a completed savepoint; a failed one's directory is deleted. A savepoint that
   * fails is not counted among the tolerable checkpoint failures.
   *
   * @param type {@code SAVEPOINT}, or a stopping kind: the tasks end once it completed
   * @return completes with the savepoint's path, or exceptionally with a {@link
   *     CheckpointException} saying why it failed
   */
  public synchronized CompletableFuture<String> triggerSavepoint(
      String directory, CheckpointOptions.Type type) {
    CompletableFuture<String> result = new CompletableFuture<>();
    Set<TaskKey> expected = plan.tasksToWaitFor();
    String refused = null;
    if (!running) {
      refused = "the job is not running (it is restarting, stopping or has ended)";
    } else if (expected.isEmpty()) {
      refused = "every task of the job has finished";
    } else if (triggers.stopping()) {
      refused = "a stop-with-savepoint is already in progress";
    }
    String target = null;
    if (refused == null) {
      try {
        target = storage.initializeSavepointLocation(jobId, directory);
      } catch (RuntimeException e) {
        refused = "the savepoint directory " + directory + " cannot be used: " + e.getMessage();
      }
    }
    if (refused != null) {
      result.completeExceptionally(
          CheckpointException.refused("Cannot take a savepoint of job " + jobId + ": " + refused));
      return result;
    }
    long now = context.currentTimeMillis();
    PendingSavepoint p =
        new PendingSavepoint(
            ids.getAndIncrement(),
            now,
            context.relativeTimeMillis(),
            expected,
            CheckpointOptions.savepoint(type, target),
            finalizer.epoch(),
            target,
            result);
    trigger(p);
    if (p.isStopping()) {
      triggers.stopWithSavepointTriggered(p.id);
    }
    LOG.info("Triggered savepoint {} ({}) of job {} into {}", p.id, type, jobId, target);
    return result;
  }

  private synchronized void onTimeout(long id) {
    PendingCheckpoint p = pending.get(id);
    if (p != null) {
      finalizer.abort(
          p,
          AbortReason.TIMEOUT,
          "not complete after "
              + settings.timeoutMillis()
              + " ms (execution.checkpointing.timeout); waiting for "
              + plan.describe(p.notYetAcknowledged(), context::locationOf));
    }
  }

  /** A task finished its snapshot for {@code checkpointId}. */
  public void acknowledge(
      TaskKey task, long checkpointId, Map<String, OperatorSubtaskState> states) {
    acknowledge(task, checkpointId, states, null);
  }

  /** A task finished its snapshot for {@code checkpointId}, with what it measured. */
  public void acknowledge(
      TaskKey task,
      long checkpointId,
      Map<String, OperatorSubtaskState> states,
      CheckpointStatistics.SubtaskCheckpointStatistics statistics) {
    PendingCheckpoint done;
    synchronized (this) {
      done = acknowledgeLocked(task, checkpointId, states, statistics);
    }
    if (done != null) {
      finalizer.complete(done);
    }
  }

  /** Records the acknowledgement; returns the checkpoint when it was the last one missing. */
  private PendingCheckpoint acknowledgeLocked(
      TaskKey task,
      long checkpointId,
      Map<String, OperatorSubtaskState> states,
      CheckpointStatistics.SubtaskCheckpointStatistics statistics) {
    PendingCheckpoint p = pending.get(checkpointId);
    if (p == null) {
      finalizer.acknowledgedAfterEnd(checkpointId, states);
      return null;
    }
    if (statistics != null) {
      statistics = statistics.received(task.vertex(), p.wallClockAt(context.relativeTimeMillis()));
    }
    if (!p.acknowledge(task, states, statistics)) {
      return null; // a duplicate, or from an earlier attempt
    }
    if (p.isFullyAcknowledged()) {
      return p;
    }
    if (statistics != null) {
      recorder.inProgress(p); // in-progress checkpoints show acks too
    }
    return null;
  }

  /** A task could not take its snapshot for {@code checkpointId}. */
  public synchronized void decline(TaskKey task, long checkpointId, Throwable cause) {
    PendingCheckpoint p = pending.get(checkpointId);
    if (p != null && p.awaits(task)) {
      p.setFailureCause(cause);
      finalizer.abort(
          p,
          AbortReason.DECLINED,
          "declined by " + plan.describe(List.of(task), context::locationOf) + ": " + cause);
    }
  }

  /**
   * A subtask ended; it takes part in no further checkpoints. A pending checkpoint triggered after
   * its input ended counts it as finished; one triggered before, which it never acknowledged (the
   * acknowledgement lost, or overtaken by this report), is aborted: its state at that barrier is
   * gone with it, and its final state is not that state. A pending savepoint is aborted too: it
   * records no finished state (a job resumed from it restores every operator, and one restored as
   * finished would leave the subtasks after it waiting for barriers that never come).
   */
  public void taskFinished(TaskKey task) {
    List<PendingCheckpoint> done = new ArrayList<>();
    synchronized (this) {
      plan.taskFinished(task);
      for (PendingCheckpoint p : new ArrayList<>(pending.values())) {
        if (!p.awaits(task)) {
          continue;
        }
        if (p.isSavepoint() || !plan.finishedBefore(task, p.id)) {
          // A savepoint records no finished state: a job resumed from it restores every operator.
          finalizer.abort(
              p,
              AbortReason.TASK_FINISHED,
              plan.describe(List.of(task), context::locationOf)
                  + " finished without acknowledging it");
          continue;
        }
        if (p.acknowledge(task, plan.finishedStates(task), null) && p.isFullyAcknowledged()) {
          done.add(p);
        }
      }
    }
    for (PendingCheckpoint p : done) {
      finalizer.complete(p);
    }
  }

  /**
   * Subtask {@code task}'s two-phase-commit sink committed (or failed to) on the completion of
   * checkpoint {@code checkpointId}: recorded for the flight recorder (see {@link
   * SinkCommitHistory}). Statistics only: nothing here can fail or hold up a checkpoint.
   */
  public synchronized void sinkCommitted(
      TaskKey task, long checkpointId, CheckpointStatistics.SinkCommit commit) {
    sinkCommits.sinkCommitted(task, checkpointId, commit);
  }

  /**
   * Takes up the checkpoint history kept beside the checkpoint or savepoint at {@code pointer},
   * which the job resumes from (see {@link CheckpointFlightRecorder#restore}); before start.
   */
  public synchronized void restoreHistory(String pointer) {
    recorder.restore(pointer);
  }

  /** The recent checkpoints, oldest first. */
  public synchronized List<CheckpointStatistics> statistics() {
    return recorder.statistics();
  }

  /** How many checkpoints and savepoints are in progress, completed and failed. */
  public synchronized CheckpointStatsCounts statisticsCounts() {
    return recorder.counts();
  }

  /** The statistics of the newest completed checkpoint or savepoint, or null before one. */
  public synchronized CheckpointStatistics latestCompletedStatistics() {
    return recorder.latestCompleted();
  }

  public synchronized int failuresTotal() {
    return finalizer.failuresTotal();
  }
}
