package io.weir.cluster.taskmanager;

import io.weir.cluster.ha.HighAvailabilityOptions;
import io.weir.cluster.rpc.Messages;
import io.weir.cluster.rpc.RegisterTaskManagerRequest;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a TaskManager does with its tasks while it has no leader (high availability): it keeps them
 * running for {@code high-availability.jobmanager-loss-grace}, their reports held back ({@link
 * JobOnTaskManager#hold}), offers them to the next leader when it registers, and hands them over
 * when that leader adopts them. It cancels them when no leader adopts them in time, and when it
 * registers again with the leader it lost, which restarts the job itself. With a grace of zero (no
 * high availability, or adoption turned off) it cancels them at once.
 *
 * <p>Runs on the TaskManager's timer thread, except {@link #adopt} on its control port's.
 */
final class TaskHandover {

  private static final Logger LOG = LoggerFactory.getLogger(TaskHandover.class);

  /** The jobs of a TaskManager, as the hand-over sees them. */
  interface Jobs {
    /** The jobs loaded now. */
    List<JobOnTaskManager> all();

    /** The job of {@code jobId}, or null. */
    JobOnTaskManager get(String jobId);

    /** Cancels the job's tasks here, for {@code reason}, and forgets it. */
    void forget(JobOnTaskManager job, String reason);
  }

  private final String taskManagerId;
  private final Duration lossGrace;
  private final ScheduledExecutorService timer;
  private final Jobs jobs;

  /**
   * @param lossGrace how long tasks keep running for a new leader to adopt them once the leader is
   *     lost; zero without high availability, where no other JobManager could adopt them
   */
  TaskHandover(
      String taskManagerId, Duration lossGrace, ScheduledExecutorService timer, Jobs jobs) {
    this.taskManagerId = taskManagerId;
    this.lossGrace = lossGrace;
    this.timer = timer;
    this.jobs = jobs;
  }

  /**
   * The leader is lost, or no longer knows this TaskManager: the jobs with running tasks are kept
   * for a new leader to adopt, until the grace period ends; every other job is forgotten and its
   * tasks cancelled (all of them, with a grace of zero).
   *
   * @param lostEpoch the epoch of the leader that was lost
   * @param why how it was lost, for the cancelled tasks' reports
   */
  void leaderLost(long lostEpoch, String why) {
    boolean keep = !lossGrace.isZero();
    for (JobOnTaskManager job : jobs.all()) {
      if (keep && !job.running().isEmpty()) {
        if (job.hold(lostEpoch)) {
          LOG.info(
              "Keeping the {} running tasks of job {} for the next leader to adopt, for up to {}"
                  + " ({})",
              job.running().size(),
              job.jobId(),
              lossGrace,
              HighAvailabilityOptions.JOBMANAGER_LOSS_GRACE.key());
          var unused =
              timer.schedule(
                  () ->
                      stopHolding(
                          job,
                          lostEpoch,
                          "no leader adopted them within "
                              + lossGrace
                              + " ("
                              + HighAvailabilityOptions.JOBMANAGER_LOSS_GRACE.key()
                              + ")"),
                  lossGrace.toMillis(),
                  TimeUnit.MILLISECONDS);
        }
        continue;
      }
      jobs.forget(job, why);
    }
  }

  /** Offers in {@code registration} the tasks kept, and those of the same jobs that ended. */
  void offer(RegisterTaskManagerRequest.Builder registration) {
    for (JobOnTaskManager job : jobs.all()) {
      if (job.isHeld()) {
        job.running().forEach(t -> registration.addRunning(Messages.toProto(t)));
        job.ended().forEach(t -> registration.addEnded(Messages.toProto(t)));
      }
    }
  }

  /**
   * Registered with the leader of epoch {@code leaderEpoch} at {@code leaderAddress}: jobs kept
   * since that leader was lost are cancelled, since it leads as before and restarts them itself.
   */
  void registered(long leaderEpoch, String leaderAddress) {
    for (JobOnTaskManager job : jobs.all()) {
      if (job.isHeld() && job.heldSince() >= leaderEpoch) {
        // Registered again with the leader it was lost from: that one restarts the job.
        stopHolding(
            job, job.heldSince(), "the JobManager at " + leaderAddress + " leads as before");
      }
    }
  }

  /**
   * Cancels the tasks of a job held since the leader of {@code lostEpoch} was lost, that no leader
   * adopted: nothing when the job was adopted since, even if it is held again for a later loss,
   * whose grace period is its own.
   */
  private void stopHolding(JobOnTaskManager job, long lostEpoch, String why) {
    if (job.stopHolding(lostEpoch)) {
      LOG.warn("Cancelling the tasks of job {}: {}", job.jobId(), why);
      jobs.forget(job, why);
    }
  }

  /**
   * The leader at {@code leaderAddress} takes over the tasks of attempt {@code attempt} of job
   * {@code jobId} that this TaskManager kept for it.
   *
   * @throws IllegalStateException saying why it cannot: the job's tasks are no longer kept here
   */
  void adopt(String jobId, int attempt, String leaderAddress) {
    JobOnTaskManager job = jobs.get(jobId);
    if (job == null || !job.adopt(attempt)) {
      throw new IllegalStateException(
          "TaskManager "
              + taskManagerId
              + " no longer keeps the tasks of attempt "
              + attempt
              + " of job "
              + jobId
              + " for adoption (they ended, or "
              + HighAvailabilityOptions.JOBMANAGER_LOSS_GRACE.key()
              + " = "
              + lossGrace
              + " ran out)");
    }
    LOG.info(
        "The leader at {} adopted the {} running tasks of job {}",
        leaderAddress,
        job.running().size(),
        jobId);
  }
}
