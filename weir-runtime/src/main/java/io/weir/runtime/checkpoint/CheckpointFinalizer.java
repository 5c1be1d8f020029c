package io.weir.runtime.checkpoint;

import io.weir.runtime.checkpoint.CheckpointCoordinator.OperatorInfo;
import io.weir.runtime.storage.CheckpointStorageCoordinatorView;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How a {@link CheckpointCoordinator}'s checkpoints end. It completes a checkpoint every task
 * acknowledged: writes its metadata, retains it in the completed-checkpoint store, subsumes the
 * older ones, keeps the shared-state registry and the files in step, tells the tasks and records
 * the statistics. It aborts one that failed: deletes what its tasks wrote, tells the tasks, counts
 * the failure and fails the job when one is too many. It owns what only an end touches: the
 * retained checkpoints, the shared-state registry, the failure count, the checkpoints whose
 * metadata is being written, and the count of ended attempts ({@link #epoch}) that says whose tasks
 * hear of an end.
 *
 * <p>Its rules:
 *
 * <ul>
 *   <li>A checkpoint whose metadata write began is retained, even if its attempt ends meanwhile
 *       ({@link #attemptEnded}): its files are whole and its cut consistent, as Flink completes a
 *       checkpoint whose finalization began. No task hears of it then (the tasks are those of the
 *       ended attempt); a sink commits its transactions when the job restores from it. Only a job
 *       master that no longer leads ({@link #stopLeading}) gives it up, since the next leader owns
 *       the completed-checkpoint store.
 *   <li>Whoever reads the retained checkpoints after a stop (a restore, the retention policy) calls
 *       {@link #awaitCommits} first.
 *   <li>While its metadata is written a checkpoint counts against max-concurrent-checkpoints
 *       ({@link #committing}).
 * </ul>
 *
 * <p>Locking: it has no lock of its own; the coordinator's lock guards it, and every method is
 * called with that lock held except four: three take it themselves ({@link #complete} takes it
 * around its steps and writes the metadata without it, so acknowledgements of other checkpoints go
 * on meanwhile; {@link #awaitCommits} waits on it; {@link #notifyEndsOwedByLostLeader} tells the
 * tasks without it), and {@link #discardOrphanedState} needs none (it only queues a delete).
 * Deletes run on the context's I/O executor, never under the lock.
 */
final class CheckpointFinalizer {

  // Its messages are the coordinator's: logging configured for the coordinator covers them.
  private static final Logger LOG = LoggerFactory.getLogger(CheckpointCoordinator.class);

  /**
   * Why a checkpoint was aborted; only some count as failures ({@link
   * CheckpointFailureManager#countsAsFailure}).
   */
  enum AbortReason {
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
     * A subtask it waited for finished without acknowledging it, which it will never do now (its
     * acknowledgement was lost, or its end overtook it).
     */
    TASK_FINISHED,
    /**
     * The completed-checkpoint store did not record it (a ZooKeeper write was refused or its
     * outcome is unknown): its files stay, since the store may hold it, and no task hears it
     * completed.
     */
    NOT_RECORDED
  }

  /**
   * The coordinator's side of an end, called under its lock: its pending checkpoints, and the
   * triggering that an end lets go on.
   */
  interface Coordinator {
    /** True while {@code p} is pending: not completed, not aborted. */
    boolean isPending(PendingCheckpoint p);

    /** Takes {@code p} out of the pending checkpoints, if it is there. */
    void removePending(PendingCheckpoint p);

    /** The pending checkpoints older than {@code checkpointId}, oldest first. */
    List<PendingCheckpoint> pendingBefore(long checkpointId);

    /** The pending checkpoints newer than {@code checkpointId}, oldest first. */
    List<PendingCheckpoint> pendingAfter(long checkpointId);

    /**
     * Checkpoint {@code finalCheckpointId} is the job's last: its stop-with-savepoint (recorded),
     * or a checkpoint every subtask took after its input ended. Its tasks are told, and end; no
     * checkpoint is triggered after it.
     */
    void jobEnds(long finalCheckpointId);

    /** Too many checkpoints failed: no checkpoint is triggered any more, the job fails. */
    void failJob(CheckpointException cause);

    /** A checkpoint ended: the next one is scheduled, and a waiting trigger-soon served. */
    void checkpointEnded();
  }

  private final String jobId;
  private final int numRetained;
  private final int maxConcurrent;
  private final List<OperatorInfo> operators;
  private final CheckpointStorageCoordinatorView storage;
  private final CheckpointCoordinatorContext context;
  private final Object lock;
  private final Coordinator coordinator;
  private final CheckpointIDCounter ids;
  private final CheckpointPlan plan;
  private final CheckpointTriggerDecider triggers;
  private final CheckpointFlightRecorder recorder;
  private final CompletedCheckpointStore completed;
  private final SharedStateRegistry sharedState;
  private final CheckpointsCleaner cleaner;
  private final CheckpointFailureManager failures;

  /**
   * Counts {@link #attemptEnded()}s: a checkpoint whose metadata is written after one belongs to an
   * attempt that has ended, and no task of it hears of its end.
   */
  private long epoch;

  /**
   * Set by {@link #stopLeading()}: this job master no longer leads, and a checkpoint whose metadata
   * is written afterwards is given up (the next leader owns the store).
   */
  private boolean suspended;

  /**
   * Checkpoints every task acknowledged whose metadata is being written: they still count against
   * max-concurrent-checkpoints, so a slow metadata write (a throttled store) is not overtaken by
   * the next checkpoint.
   */
  private int committing;

  /** Completed checkpoints in which every subtask had ended its input. */
  private final Set<Long> finalCheckpoints = new HashSet<>();

  /**
   * A checkpoint the job was restored from in {@code CLAIM} mode: the job owns it and deletes it
   * once it is subsumed, as it would one of its own; null otherwise.
   */
  private Runnable claimedRestoreDiscard;

  /**
   * The directories of recently aborted savepoints, by id: a task whose upload ends after the abort
   * deleted the directory wrote into it again, and its late acknowledgement deletes it once more.
   */
  private final LinkedHashMap<Long, String> abortedSavepoints =
      new LinkedHashMap<>() {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Long, String> eldest) {
          return size() > 16;
        }
      };

  /**
   * A finalizer guarded by {@code lock}, the coordinator's, that registers the shared files of the
   * checkpoints {@code completed} holds already and counts failures as {@code settings} say.
   *
   * @param ids the coordinator's id counter, to tell an id it issued
   * @param plan which subtasks finished, read when a checkpoint completes
   * @param triggers told when a checkpoint or savepoint ended
   * @param recorder records each end
   */
  CheckpointFinalizer(
      String jobId,
      CheckpointSettings settings,
      List<OperatorInfo> operators,
      CheckpointStorageCoordinatorView storage,
      CheckpointCoordinatorContext context,
      Object lock,
      Coordinator coordinator,
      CheckpointIDCounter ids,
      CheckpointPlan plan,
      CheckpointTriggerDecider triggers,
      CheckpointFlightRecorder recorder,
      CompletedCheckpointStore completed) {
    this.jobId = jobId;
    this.numRetained = settings.numRetained();
    this.maxConcurrent = settings.maxConcurrent();
    this.operators = List.copyOf(operators);
    this.storage = storage;
    this.context = context;
    this.lock = lock;
    this.coordinator = coordinator;
    this.ids = ids;
    this.plan = plan;
    this.triggers = triggers;
    this.recorder = recorder;
    this.completed = completed;
    this.failures = new CheckpointFailureManager(settings.tolerableFailures());
    this.sharedState = new SharedStateRegistry(storage);
    this.cleaner =
        new CheckpointsCleaner(jobId, storage, command -> context.ioExecutor().execute(command));
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

  /** The attempt a checkpoint triggered now belongs to (see {@link PendingCheckpoint#epoch}). */
  long epoch() {
    return epoch;
  }

  /**
   * The attempt ended (its pending checkpoints are aborted): a checkpoint whose metadata is being
   * written is still retained, but no task hears of it.
   */
  void attemptEnded() {
    epoch++;
  }

  /**
   * This job master no longer leads: a checkpoint whose metadata is being written is given up
   * rather than retained.
   */
  void stopLeading() {
    suspended = true;
  }

  /** How many checkpoints every task acknowledged are having their metadata written. */
  int committing() {
    return committing;
  }

  /** See {@link CheckpointCoordinator#awaitCommits()}; takes the lock. */
  void awaitCommits() {
    synchronized (lock) {
      boolean interrupted = false;
      while (committing > 0) {
        try {
          lock.wait();
        } catch (InterruptedException e) {
          interrupted = true;
        }
      }
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /**
   * For an attempt adopted from a lost job master (see {@link CheckpointCoordinator#takeOver()}):
   * tells the tasks of the ends that job master may not have told them. The checkpoints it
   * triggered and did not record are aborted, and the newest recorded one (or its completed
   * stop-with-savepoint) completed. Takes the lock to read what was recorded, and tells the tasks
   * without it.
   */
  void notifyEndsOwedByLostLeader() {
    long newestRecorded;
    long lastIssued;
    synchronized (lock) {
      CompletedCheckpoint latest = latestCompleted();
      newestRecorded = latest == null ? 0 : latest.checkpointId();
      CompletedStop stop = completed.completedStop();
      if (stop != null) {
        // The newest end after it: its tasks are told it completed, none that it was aborted.
        newestRecorded = Math.max(newestRecorded, stop.savepointId());
      }
      lastIssued = ids.get();
    }
    // Only the newest can still be in flight on the tasks, as many as may run at once (and a
    // savepoint besides); the earlier ones were aborted or subsumed then.
    long oldest = lastIssued - Math.max(1, maxConcurrent);
    for (long id = Math.max(newestRecorded + 1, oldest); id <= lastIssued; id++) {
      context.notifyAborted(id);
    }
    if (newestRecorded > 0) {
      context.notifyComplete(newestRecorded);
    }
  }

  /** See {@link CheckpointCoordinator#claimRestoredCheckpoint}. */
  void claimRestoredCheckpoint(Runnable discard) {
    this.claimedRestoreDiscard = discard;
  }

  /** See {@link CheckpointCoordinator#isFinal}. */
  boolean isFinal(long checkpointId) {
    return finalCheckpoints.contains(checkpointId);
  }

  /** The completed stop-with-savepoint the store recorded, or null. */
  CompletedStop completedStop() {
    return completed.completedStop();
  }

  /** The newest completed checkpoint, or null. */
  CompletedCheckpoint latestCompleted() {
    List<CompletedCheckpoint> all = completed.all();
    return all.isEmpty() ? null : all.get(0);
  }

  /** The retained completed checkpoints, newest first. */
  List<CompletedCheckpoint> retained() {
    return completed.all();
  }

  /** The files of the shared-state registry. */
  Set<String> sharedStatePaths() {
    return sharedState.referencedPaths();
  }

  int consecutiveFailures() {
    return failures.consecutiveFailures();
  }

  int failuresTotal() {
    return failures.failuresTotal();
  }

  /** See {@link CheckpointCoordinator#discardRetained()}. */
  void discardRetained() {
    for (CompletedCheckpoint c : completed.removeAll()) {
      cleaner.discardCheckpoint(c.checkpointId());
    }
    sharedState.release(Long.MAX_VALUE);
    cleaner.discardUnreferencedSharedState(Set.of(), Long.MAX_VALUE);
  }

  /** See {@link CheckpointCoordinator#discardOrphanedState(boolean)}; needs no lock. */
  void discardOrphanedState(boolean nothingInProgress) {
    cleaner.discardOrphanedState(nothingInProgress);
  }

  /**
   * A task acknowledged {@code checkpointId}, which is not pending: when it was aborted meanwhile,
   * the task wrote its state after the abort deleted the checkpoint's files, so they are deleted
   * again rather than left as orphans.
   */
  void acknowledgedAfterEnd(long checkpointId, Map<String, OperatorSubtaskState> states) {
    String abortedSavepoint = abortedSavepoints.get(checkpointId);
    if (abortedSavepoint != null) {
      cleaner.discardSavepoint(checkpointId, abortedSavepoint);
    } else if (checkpointId <= ids.get()
        && completed.all().stream().noneMatch(c -> c.checkpointId() == checkpointId)) {
      cleaner.discardCheckpoint(checkpointId);
      sharedState.discardUnregistered(states);
    }
  }

  /**
   * Completes {@code p}, which every task acknowledged; called without the lock. Builds and
   * registers it under the lock, writes its metadata without the lock, then retains it and tells
   * the tasks under the lock again. Does nothing if {@code p} was aborted meanwhile.
   */
  void complete(PendingCheckpoint p) {
    CompletedCheckpoint checkpoint;
    synchronized (lock) {
      if (!coordinator.isPending(p)) {
        return; // aborted meanwhile
      }
      checkpoint = p.toCompleted(jobId, operators, plan.finishedTasks());
      if (!p.isSavepoint()) {
        // A savepoint refers to no shared file (its keyed state is written in full): it is not
        // registered, so it never holds a shared file of the job's checkpoints alive.
        checkpoint = sharedState.register(checkpoint);
      }
      coordinator.removePending(p);
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
      synchronized (lock) {
        p.committed(externalPath, p.wallClockAt(context.relativeTimeMillis()));
        history = recorder.historyOnCompletion(p);
      }
      recorder.write(externalPath, history);
    }
    synchronized (lock) {
      committing--;
      lock.notifyAll();
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
   * The savepoint's metadata is written in its directory: whoever triggered it gets its path.
   * Nothing is subsumed, nothing is retained. Only a stopping savepoint is told to the tasks (it
   * counts as final: every task ends, its sinks commit). An intermediate savepoint commits no side
   * effects, as in Flink since 1.15: a failover restores the newest checkpoint, never a savepoint,
   * so the records between that checkpoint and the savepoint come again, and a two-phase-commit
   * sink that had committed the savepoint's transactions would commit them twice. Its transactions
   * stay pending and the next checkpoint's completion commits them.
   */
  private void completeSavepoint(PendingSavepoint p) {
    if (p.isStopping()) {
      if (!recordStop(p)) {
        return;
      }
      finalCheckpoints.add(p.id);
      coordinator.jobEnds(p.id);
      // The tasks now end without ending their input: a checkpoint still pending from before the
      // stop would count each as finished (taskFinished) and complete as if every source had
      // read all its input; restored after a failure, it would lose every record after the stop.
      for (PendingCheckpoint older : coordinator.pendingBefore(p.id)) {
        abort(older, AbortReason.JOB_STOPPED, "the job stops with savepoint " + p.id);
      }
    }
    recorder.completed(p);
    LOG.info(
        "Completed savepoint {} of job {} in {} ms: {}",
        p.id,
        jobId,
        p.elapsedMillis(context.relativeTimeMillis()),
        p.externalPath());
    if (p.isStopping()) {
      context.notifyComplete(p.id);
    }
    p.completed();
    coordinator.checkpointEnded();
  }

  /**
   * Records the completed stop {@code p} in the store before any task hears of it and its sinks
   * commit: a job master that takes the job over then ends it, where it would restore an older
   * checkpoint and commit again. False, and {@code p} aborted, when the stop fails instead.
   */
  private boolean recordStop(PendingSavepoint p) {
    if (p.epoch != epoch) {
      // Its attempt ended while its metadata was written, and the job restarts: the stop failed.
      // Recorded, it would later end the restarted job naming a savepoint the job went past.
      abort(p, AbortReason.JOB_STOPPED, "its attempt ended while its metadata was written");
      return false;
    }
    try {
      completed.stopCompleted(new CompletedStop(p.id, p.externalPath()));
      return true;
    } catch (RuntimeException e) {
      LOG.warn("The completed-checkpoint store did not record the stop of savepoint {}", p.id, e);
      p.setFailureCause(e);
      if (completed.completedStop() != null) {
        // Its outcome is unknown: the store may hold it, and a later job master would end the job
        // naming the savepoint. Reading on past it would commit records after the savepoint that
        // resuming from it commits again: the job ends here too, no task told.
        coordinator.failJob(
            new CheckpointException(
                "The stop of job "
                    + jobId
                    + " with savepoint "
                    + p.id
                    + " may be recorded or not ("
                    + e.getMessage()
                    + "): the job ends rather than read on past a stop a later job master may find",
                e));
      }
      abort(
          p,
          AbortReason.NOT_RECORDED,
          "the completed-checkpoint store did not record the job's stop: " + e);
      return false;
    }
  }

  /** The checkpoint's metadata is written: it is retained, older ones may go. */
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
    if (claimedRestoreDiscard != null && completed.all().size() >= numRetained) {
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
      // The job ends: its subtasks finish on this notification. A checkpoint after it would hold
      // finished subtasks without state, which a restore cannot run again (their sources would
      // start over); a pending one newer than it has nothing more to hold.
      finalCheckpoints.add(p.id);
      coordinator.jobEnds(p.id);
      for (PendingCheckpoint newer : coordinator.pendingAfter(p.id)) {
        abort(newer, AbortReason.JOB_STOPPED, "checkpoint " + p.id + " is final: the job ends");
      }
    }
    failures.checkpointCompleted();
    long now = context.relativeTimeMillis();
    triggers.checkpointEnded(now);
    recorder.completed(p);
    LOG.info("Completed checkpoint {} of job {} in {} ms", p.id, jobId, p.elapsedMillis(now));
    for (PendingCheckpoint older : coordinator.pendingBefore(p.id)) {
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
    coordinator.checkpointEnded();
  }

  /**
   * Aborts {@code p} for {@code reason}, {@code why} saying what happened: deletes what its tasks
   * wrote, tells the tasks of its attempt, fails a savepoint's caller, and counts the failure when
   * it is one ({@link CheckpointFailureManager#countsAsFailure}).
   */
  void abort(PendingCheckpoint p, AbortReason reason, String why) {
    coordinator.removePending(p);
    p.cancelTimeout();
    LOG.warn("Checkpoint {} of job {} aborted: {}", p.id, jobId, why);
    recorder.failed(p, reason + ": " + why);
    if (p instanceof PendingSavepoint savepoint) {
      if (reason != AbortReason.NOT_RECORDED) {
        // Its tasks wrote into its own directory only, nothing into the job's storage. A stop
        // not recorded stays: the store may hold it after all, and a later leader end the job
        // naming it.
        abortedSavepoints.put(p.id, savepoint.directory);
        cleaner.discardSavepoint(p.id, savepoint.directory);
      }
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
      triggers.checkpointEnded(context.relativeTimeMillis());
      Optional<CheckpointException> jobFailure =
          failures.checkpointFailed(p.id, reason, why, p.failureCause());
      if (jobFailure.isPresent()) {
        coordinator.failJob(jobFailure.get());
      }
    }
    coordinator.checkpointEnded();
  }
}
