package io.weir.runtime.checkpoint;

import io.weir.api.CheckpointStatistics;
import io.weir.api.config.CheckpointingOptions;
import io.weir.runtime.storage.CheckpointStorageCoordinatorView;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decides when checkpoints start, completes them when every task acknowledged, aborts them on
 * timeout or decline, and fails the job when too many fail in a row. Holds no threads and reads no
 * clock: time, timers and messages to tasks go through its {@link Context}, so tests drive it step
 * by step. Its state is guarded by its lock: acknowledgements arrive from tasks' snapshot threads
 * and timers from the timer thread. No storage I/O happens under the lock: a completing checkpoint
 * writes its metadata after the lock is released (acknowledgements of other checkpoints go on
 * meanwhile), and deletes run on the context's I/O executor, so a slow store never holds up the
 * protocol.
 *
 * <p>Its parts, as in Flink, each without threads or clocks and called under its lock: {@link
 * CheckpointTriggerDecider} says when the next checkpoint may start, a {@link PendingCheckpoint}
 * (or {@link PendingSavepoint}) collects one checkpoint's acknowledgements, {@link CheckpointPlan}
 * says which subtasks a checkpoint waits for, {@link CheckpointFailureManager} counts failures and
 * says when the job must fail, and {@link CheckpointFlightRecorder} keeps the statistics. The
 * coordinator ties them to the timers, the tasks and the storage.
 */
public final class CheckpointCoordinator {

  private static final Logger LOG = LoggerFactory.getLogger(CheckpointCoordinator.class);

  /** What the coordinator needs from the outside world. */
  public interface Context {
    long currentTimeMillis();

    /** Runs {@code action} once after {@code delayMillis}; the result cancels it. */
    Runnable schedule(Runnable action, long delayMillis);

    /**
     * Asks every running source subtask to take checkpoint (or savepoint) {@code id} and emit its
     * barrier.
     */
    void triggerSources(long checkpointId, long timestamp, CheckpointOptions options);

    /** Tells every task that {@code checkpointId} completed. */
    void notifyComplete(long checkpointId);

    /** Tells every task that {@code checkpointId} was aborted. */
    void notifyAborted(long checkpointId);

    /** Fails the job: too many checkpoints failed. */
    void failJob(Throwable cause);

    /**
     * Runs deletes of checkpoint files, in order, off the coordinator's lock. Runs them at once by
     * default (tests).
     */
    default Executor ioExecutor() {
      return Runnable::run;
    }
  }

  /**
   * The checkpoint settings the coordinator follows.
   *
   * @param intervalMillis time between triggers
   * @param timeoutMillis a checkpoint not complete after this is aborted
   * @param minPauseMillis least time between the end of one checkpoint and the next trigger
   * @param maxConcurrent most checkpoints pending at once
   * @param tolerableFailures consecutive failures tolerated; one more fails the job
   * @param numRetained completed checkpoints kept
   * @param historySize checkpoints whose statistics are kept ({@code web.checkpoints.history})
   */
  public record Settings(
      long intervalMillis,
      long timeoutMillis,
      long minPauseMillis,
      int maxConcurrent,
      int tolerableFailures,
      int numRetained,
      int historySize) {

    /** The settings with the default history size. */
    public Settings(
        long intervalMillis,
        long timeoutMillis,
        long minPauseMillis,
        int maxConcurrent,
        int tolerableFailures,
        int numRetained) {
      this(
          intervalMillis,
          timeoutMillis,
          minPauseMillis,
          maxConcurrent,
          tolerableFailures,
          numRetained,
          CheckpointingOptions.CHECKPOINTS_HISTORY_SIZE.defaultValue());
    }
  }

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

  /**
   * Why a checkpoint was aborted; only some count as failures ({@link
   * CheckpointFailureManager#countsAsFailure}).
   */
  public enum AbortReason {
    /** Not complete within the timeout. */
    TIMEOUT,
    /** A task could not take its snapshot. */
    DECLINED,
    /** The metadata could not be written. */
    STORAGE_FAILURE,
    /** A newer checkpoint completed first. */
    SUBSUMED,
    /** The job is failing over or stopping. */
    JOB_STOPPED,
    /**
     * The completed-checkpoint store did not record it (a ZooKeeper write was refused or its
     * outcome is unknown): its files stay, since the store may hold it, and no task hears it
     * completed.
     */
    NOT_RECORDED
  }

  private final String jobId;
  private final Settings settings;
  private final List<OperatorInfo> operators;
  private final CheckpointStorageCoordinatorView storage;
  private final SharedStateRegistry sharedState;
  private final CheckpointsCleaner cleaner;
  private final Context context;
  private final TreeMap<Long, PendingCheckpoint> pending = new TreeMap<>();
  private final CompletedCheckpointStore completed;
  private final CheckpointIDCounter ids;
  private final CheckpointPlan plan;
  private final CheckpointFailureManager failures;
  private final CheckpointFlightRecorder recorder;
  private final CheckpointTriggerDecider triggers;
  private boolean running;

  /**
   * Counts {@link #stop()}s and {@link #suspend()}s: a checkpoint whose metadata is written after
   * one belongs to an attempt that has ended, and no task of it hears of its end.
   */
  private long epoch;

  /**
   * Set by {@link #suspend()}: this job master no longer leads, and a checkpoint whose metadata is
   * written afterwards is given up (the next leader owns the store).
   */
  private boolean suspended;

  /**
   * Checkpoints every task acknowledged whose metadata is being written: they still count against
   * max-concurrent-checkpoints, so a slow metadata write (a throttled store) is not overtaken by
   * the next checkpoint.
   */
  private int committing;

  private Runnable cancelNextTrigger;
  private boolean triggerSoonRequested;

  /** Completed checkpoints in which every subtask had ended its input. */
  private final Set<Long> finalCheckpoints = new HashSet<>();

  /** How periodic checkpoints align; savepoints always align. */
  private CheckpointOptions checkpointOptions =
      CheckpointOptions.checkpoint(BarrierHandler.Alignment.ALIGNED);

  /**
   * A checkpoint the job was restored from in {@code CLAIM} mode: the job owns it and deletes it
   * once it is subsumed, as it would one of its own; null otherwise.
   */
  private Runnable claimedRestoreDiscard;

  /**
   * The directories of recently aborted savepoints, by id: a task whose upload ends after the abort
   * deleted the directory wrote into it again, and its late acknowledgement deletes it once more.
   */
  private final java.util.LinkedHashMap<Long, String> abortedSavepoints =
      new java.util.LinkedHashMap<>() {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Long, String> eldest) {
          return size() > 16;
        }
      };

  public CheckpointCoordinator(
      String jobId,
      Settings settings,
      List<OperatorInfo> operators,
      CheckpointStorageCoordinatorView storage,
      Context context,
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
      Settings settings,
      List<OperatorInfo> operators,
      CheckpointStorageCoordinatorView storage,
      Context context,
      CheckpointIDCounter ids,
      CompletedCheckpointStore completed) {
    this.jobId = jobId;
    this.settings = settings;
    this.operators = List.copyOf(operators);
    this.plan = new CheckpointPlan(operators);
    this.storage = storage;
    this.sharedState = new SharedStateRegistry(storage);
    this.context = context;
    this.cleaner =
        new CheckpointsCleaner(jobId, storage, command -> context.ioExecutor().execute(command));
    this.ids = ids;
    this.completed = completed;
    this.failures = new CheckpointFailureManager(settings.tolerableFailures());
    this.recorder =
        new CheckpointFlightRecorder(
            jobId, settings.historySize(), storage, context::currentTimeMillis);
    this.triggers =
        new CheckpointTriggerDecider(
            settings.intervalMillis(), settings.minPauseMillis(), settings.maxConcurrent());
    // Checkpoints the store recovered (a new leader after a failover): their shared files are
    // registered, oldest first, as Flink registers them after a restore. A task restored from one
    // refers to its shared files without uploading them again, and the registry must know them
    // then; it also deletes them once no retained checkpoint uses them.
    List<CompletedCheckpoint> recovered = completed.all();
    for (int i = recovered.size() - 1; i >= 0; i--) {
      if (!recovered.get(i).savepoint()) {
        sharedState.register(recovered.get(i));
      }
    }
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
    this.claimedRestoreDiscard = discard;
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
    if (plan.inputEnded(task)) {
      triggerSoon();
    }
  }

  /** Starts periodic triggering. */
  public synchronized void start() {
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
    long newestRecorded;
    long lastIssued;
    synchronized (this) {
      CompletedCheckpoint latest = latestCompleted();
      newestRecorded = latest == null ? 0 : latest.checkpointId();
      lastIssued = ids.get();
    }
    // Only the newest can still be in flight on the tasks, as many as may run at once (and a
    // savepoint besides); the earlier ones were aborted or subsumed then.
    long oldest = lastIssued - Math.max(1, settings.maxConcurrent());
    for (long id = Math.max(newestRecorded + 1, oldest); id <= lastIssued; id++) {
      context.notifyAborted(id);
    }
    if (newestRecorded > 0) {
      context.notifyComplete(newestRecorded);
    }
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
    running = false;
    if (cancelNextTrigger != null) {
      cancelNextTrigger.run();
      cancelNextTrigger = null;
    }
    for (PendingCheckpoint p : new ArrayList<>(pending.values())) {
      abort(p, AbortReason.JOB_STOPPED, "the job attempt ended");
    }
    epoch++;
  }

  /**
   * As {@link #stop()}, for a job master that no longer leads (Flink's suspend): a checkpoint whose
   * metadata is being written is given up rather than retained, since the next leader owns the
   * completed-checkpoint store now.
   */
  public synchronized void suspend() {
    suspended = true;
    stop();
  }

  /**
   * Waits until no checkpoint's metadata is being written, so that the retained checkpoints are
   * final: a restore picks the newest of them, and the retention policy keeps or deletes them, only
   * after this. The writes end on their own (they do not need the caller's locks).
   */
  public synchronized void awaitCommits() {
    boolean interrupted = false;
    while (committing > 0) {
      try {
        wait();
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * True when completed checkpoint {@code checkpointId} was taken after every subtask had ended its
   * input: a bounded job may finish once such a checkpoint completed.
   */
  public synchronized boolean isFinal(long checkpointId) {
    return finalCheckpoints.contains(checkpointId);
  }

  /** The newest completed checkpoint, or null. */
  public synchronized CompletedCheckpoint latestCompleted() {
    List<CompletedCheckpoint> all = completed.all();
    return all.isEmpty() ? null : all.get(0);
  }

  /**
   * Deletes every retained checkpoint and the shared files they use, for a job that ends with its
   * checkpoints not retained.
   */
  public synchronized void discardRetained() {
    for (CompletedCheckpoint c : completed.removeAll()) {
      cleaner.discardCheckpoint(c.checkpointId());
    }
    sharedState.release(Long.MAX_VALUE);
    cleaner.discardUnreferencedSharedState(Set.of(), Long.MAX_VALUE);
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
    cleaner.discardOrphanedState(nothingInProgress);
  }

  /** The files of the shared-state registry, for tests. */
  public synchronized Set<String> sharedStatePaths() {
    return sharedState.referencedPaths();
  }

  /** The retained completed checkpoints, newest first. */
  public synchronized List<CompletedCheckpoint> retained() {
    return completed.all();
  }

  public synchronized int numberOfPending() {
    return pending.size();
  }

  public synchronized int consecutiveFailures() {
    return failures.consecutiveFailures();
  }

  public synchronized long lastCheckpointId() {
    return ids.get();
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
    long now = context.currentTimeMillis();
    CheckpointTriggerDecider.Decision decision = triggers.onTimer(pending.size() + committing, now);
    if (decision instanceof CheckpointTriggerDecider.TriggerNow trigger) {
      triggerCheckpoint(now);
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
    if (running && pending.isEmpty() && committing == 0) {
      triggerSoonRequested = false;
      scheduleTrigger(triggers.delayUntilPauseOver(context.currentTimeMillis()));
    } else {
      triggerSoonRequested = true;
    }
  }

  /** Serves a remembered {@link #triggerSoon} once nothing is pending. */
  private void serveTriggerSoon() {
    if (triggerSoonRequested && running && pending.isEmpty() && committing == 0) {
      triggerSoon();
    }
  }

  private void triggerCheckpoint(long now) {
    Set<TaskKey> expected = plan.tasksToWaitFor();
    if (expected.isEmpty()) {
      return;
    }
    trigger(new PendingCheckpoint(ids.getAndIncrement(), now, expected, checkpointOptions, epoch));
  }

  private void trigger(PendingCheckpoint p) {
    long id = p.id;
    pending.put(id, p);
    recorder.inProgress(p);
    p.setTimeout(context.schedule(() -> onTimeout(id), settings.timeoutMillis()));
    LOG.debug("Triggering {} {} of job {}", p.options.type(), id, jobId);
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
          new CheckpointException(
              "Cannot take a savepoint of job " + jobId + ": " + refused, null));
      return result;
    }
    long now = context.currentTimeMillis();
    PendingSavepoint p =
        new PendingSavepoint(
            ids.getAndIncrement(),
            now,
            expected,
            CheckpointOptions.savepoint(type, target),
            epoch,
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
      abort(
          p,
          AbortReason.TIMEOUT,
          "not complete after "
              + settings.timeoutMillis()
              + " ms (execution.checkpointing.timeout); waiting for "
              + describe(p.notYetAcknowledged()));
    }
  }

  /**
   * Subtasks as Flink names them in messages, {@code 'Keyed Count -> Sink' (2/4)}, in the job's
   * order; at most ten, then how many more.
   */
  private String describe(Collection<TaskKey> tasks) {
    List<TaskKey> sorted =
        tasks.stream()
            .sorted(Comparator.comparingInt(TaskKey::vertex).thenComparingInt(TaskKey::subtask))
            .toList();
    StringBuilder text = new StringBuilder();
    for (int i = 0; i < sorted.size() && i < 10; i++) {
      TaskKey task = sorted.get(i);
      List<OperatorInfo> chain =
          operators.stream().filter(o -> o.vertex() == task.vertex()).toList();
      String name =
          chain.isEmpty()
              ? "vertex " + task.vertex()
              : chain.stream().map(OperatorInfo::name).collect(Collectors.joining(" -> "));
      int parallelism = chain.isEmpty() ? 0 : chain.get(0).parallelism();
      text.append(i == 0 ? "" : ", ")
          .append('\'')
          .append(name)
          .append("' (")
          .append(task.subtask() + 1)
          .append('/')
          .append(parallelism)
          .append(')');
    }
    if (sorted.size() > 10) {
      text.append(" and ").append(sorted.size() - 10).append(" more");
    }
    return text.toString();
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
      complete(done);
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
      // Aborted meanwhile: the task wrote its state after the abort deleted the checkpoint's
      // files, so delete again rather than leave orphans.
      String abortedSavepoint = abortedSavepoints.get(checkpointId);
      if (abortedSavepoint != null) {
        cleaner.discardSavepoint(checkpointId, abortedSavepoint);
      } else if (checkpointId <= ids.get()
          && completed.all().stream().noneMatch(c -> c.checkpointId() == checkpointId)) {
        cleaner.discardCheckpoint(checkpointId);
        sharedState.discardUnregistered(states);
      }
      return null;
    }
    if (statistics != null) {
      statistics = statistics.received(task.vertex(), context.currentTimeMillis());
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
      abort(p, AbortReason.DECLINED, "declined by " + task + ": " + cause);
    }
  }

  /** A subtask ended after its input; it takes part in no further checkpoints. */
  public void taskFinished(TaskKey task) {
    List<PendingCheckpoint> done = new ArrayList<>();
    synchronized (this) {
      plan.taskFinished(task);
      for (PendingCheckpoint p : new ArrayList<>(pending.values())) {
        if (p.acknowledge(task, plan.finishedStates(task), null) && p.isFullyAcknowledged()) {
          done.add(p);
        }
      }
    }
    for (PendingCheckpoint p : done) {
      complete(p);
    }
  }

  /**
   * Completes a checkpoint every task acknowledged: builds and registers it under the lock, writes
   * its metadata without the lock, then retains it and tells the tasks under the lock again.
   */
  private void complete(PendingCheckpoint p) {
    CompletedCheckpoint checkpoint;
    synchronized (this) {
      if (pending.get(p.id) != p) {
        return; // aborted meanwhile
      }
      checkpoint = p.toCompleted(jobId, operators, plan.finishedTasks());
      if (!p.isSavepoint()) {
        // A savepoint refers to no shared file (its keyed state is written in full): it is not
        // registered, so it never holds a shared file of the job's checkpoints alive.
        checkpoint = sharedState.register(checkpoint);
      }
      pending.remove(p.id);
      committing++;
      p.cancelTimeout();
    }
    Exception failure = null;
    String externalPath = null;
    try {
      externalPath =
          p instanceof PendingSavepoint savepoint
              ? storage.commitSavepoint(checkpoint, savepoint.directory)
              : storage.commitCheckpoint(checkpoint);
    } catch (Exception e) {
      failure = e;
    }
    if (failure == null) {
      CheckpointHistory history;
      synchronized (this) {
        p.committed(externalPath, context.currentTimeMillis());
        history = recorder.historyOnCompletion(p);
      }
      recorder.write(externalPath, history);
    }
    synchronized (this) {
      committing--;
      notifyAll();
      if (suspended) {
        abort(p, AbortReason.JOB_STOPPED, "the job master stopped leading while it was written");
        return;
      }
      if (failure != null) {
        LOG.warn("Could not write the metadata of checkpoint {}", p.id, failure);
        p.setFailureCause(failure);
        abort(
            p,
            p.epoch == epoch ? AbortReason.STORAGE_FAILURE : AbortReason.JOB_STOPPED,
            "writing the metadata failed: " + failure);
        return;
      }
      if (p instanceof PendingSavepoint savepoint) {
        completeSavepoint(savepoint);
      } else {
        retain(p, checkpoint);
      }
    }
  }

  /**
   * The savepoint's metadata is written in its directory: the tasks hear that it completed (a
   * stopping savepoint counts as final: every task ends), and whoever triggered it gets its path.
   * Nothing is subsumed, nothing is retained. Under the lock.
   */
  private void completeSavepoint(PendingSavepoint p) {
    if (p.isStopping()) {
      finalCheckpoints.add(p.id);
      running = false; // the job ends: no checkpoint after its stop-with-savepoint
      if (cancelNextTrigger != null) {
        cancelNextTrigger.run();
        cancelNextTrigger = null;
      }
    }
    recorder.completed(p);
    LOG.info(
        "Completed savepoint {} of job {} in {} ms: {}",
        p.id,
        jobId,
        context.currentTimeMillis() - p.timestamp,
        p.externalPath());
    if (p.epoch == epoch) {
      context.notifyComplete(p.id);
    }
    p.completed();
    if (running && cancelNextTrigger == null) {
      scheduleTrigger(triggers.delayAfterEnd());
    }
    serveTriggerSoon();
  }

  /** The checkpoint's metadata is written: it is retained, older ones may go. Under the lock. */
  private void retain(PendingCheckpoint p, CompletedCheckpoint checkpoint) {
    CompletedCheckpoint newest = latestCompleted();
    if (newest != null && newest.checkpointId() > p.id) {
      // A newer checkpoint's metadata was written first: this one is subsumed already.
      abort(p, AbortReason.SUBSUMED, "subsumed by checkpoint " + newest.checkpointId());
      return;
    }
    List<CompletedCheckpoint> subsumedByIt;
    try {
      subsumedByIt = completed.add(checkpoint);
    } catch (RuntimeException e) {
      LOG.warn("The completed-checkpoint store did not record checkpoint {}", p.id, e);
      p.setFailureCause(e);
      abort(p, AbortReason.NOT_RECORDED, "the completed-checkpoint store did not record it: " + e);
      return;
    }
    for (CompletedCheckpoint subsumed : subsumedByIt) {
      cleaner.discardCheckpoint(subsumed.checkpointId());
    }
    if (claimedRestoreDiscard != null && completed.all().size() >= settings.numRetained()) {
      // The claimed checkpoint would be the oldest retained one: it is subsumed now.
      Runnable discard = claimedRestoreDiscard;
      claimedRestoreDiscard = null;
      cleaner.discard(discard);
    }
    boolean allEnded = true;
    for (OperatorState op : checkpoint.operators()) {
      for (OperatorSubtaskState st : op.subtasks()) {
        allEnded &= st.finished();
      }
    }
    if (allEnded) {
      finalCheckpoints.add(p.id);
    }
    failures.checkpointCompleted();
    long now = context.currentTimeMillis();
    triggers.checkpointEnded(now);
    recorder.completed(p);
    LOG.info("Completed checkpoint {} of job {} in {} ms", p.id, jobId, now - p.timestamp);
    for (PendingCheckpoint older : new ArrayList<>(pending.headMap(p.id).values())) {
      if (!older.isSavepoint()) { // a savepoint is never subsumed
        abort(older, AbortReason.SUBSUMED, "subsumed by checkpoint " + p.id);
      }
    }
    List<CompletedCheckpoint> retained = completed.all();
    sharedState.release(retained.get(retained.size() - 1).checkpointId());
    cleaner.discardUnreferencedSharedState(sharedState.referencedPaths(), p.id);
    if (p.epoch == epoch) { // else its attempt ended while its metadata was written
      context.notifyComplete(p.id);
    }
    if (running && cancelNextTrigger == null) {
      scheduleTrigger(triggers.delayAfterEnd());
    }
    serveTriggerSoon();
  }

  private void abort(PendingCheckpoint p, AbortReason reason, String why) {
    pending.remove(p.id);
    p.cancelTimeout();
    LOG.warn("Checkpoint {} of job {} aborted: {}", p.id, jobId, why);
    recorder.failed(p, reason + ": " + why);
    if (p instanceof PendingSavepoint savepoint) {
      // Its tasks wrote into its own directory only, nothing into the job's storage.
      abortedSavepoints.put(p.id, savepoint.directory);
      cleaner.discardSavepoint(p.id, savepoint.directory);
    } else if (reason != AbortReason.NOT_RECORDED) {
      cleaner.discardCheckpoint(p.id);
      // Registered already if it failed after every task acknowledged (its metadata, a newer
      // checkpoint first, a stop meanwhile): the registry forgets what only it used.
      sharedState.unregister(p.id);
      p.acknowledgedStates().forEach(sharedState::discardUnregistered);
    }
    boolean ofTheRunningAttempt = p.epoch == epoch;
    if (ofTheRunningAttempt) {
      context.notifyAborted(p.id);
    }
    if (p instanceof PendingSavepoint savepoint) {
      triggers.savepointAborted(p.id);
      savepoint.failed(
          new CheckpointException(
              "Savepoint " + p.id + " of job " + jobId + " failed (" + reason + "): " + why,
              p.failureCause()));
    }
    if (ofTheRunningAttempt && CheckpointFailureManager.countsAsFailure(reason, p.isSavepoint())) {
      triggers.checkpointEnded(context.currentTimeMillis());
      Optional<CheckpointException> jobFailure =
          failures.checkpointFailed(p.id, reason, why, p.failureCause());
      if (jobFailure.isPresent()) {
        running = false;
        context.failJob(jobFailure.get());
      }
    }
    if (running && cancelNextTrigger == null) {
      scheduleTrigger(triggers.delayAfterEnd());
    }
    serveTriggerSoon();
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
    return failures.failuresTotal();
  }
}
