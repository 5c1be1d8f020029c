package io.weir.cluster.jobmanager;

import io.weir.api.JobID;
import io.weir.api.config.CheckpointingOptions;
import io.weir.api.config.Configuration;
import io.weir.cluster.ha.JobResult;
import io.weir.cluster.ha.JobResultStore;
import io.weir.cluster.ha.LeaderEpoch;
import io.weir.cluster.ha.SubmittedJob;
import io.weir.cluster.ha.SubmittedJobStore;
import io.weir.cluster.ha.ZooKeeperHaServices;
import io.weir.cluster.rpc.JarStore;
import io.weir.runtime.checkpoint.CheckpointIDCounter;
import io.weir.runtime.checkpoint.CheckpointRecoveryFactory;
import io.weir.runtime.checkpoint.CompletedCheckpoint;
import io.weir.runtime.checkpoint.CompletedCheckpointStore;
import io.weir.runtime.jobmaster.JobMaster;
import io.weir.runtime.storage.CheckpointStorage;
import io.weir.runtime.storage.CheckpointStorages;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One term of this JobManager as the cluster's leader under ZooKeeper high availability: its epoch
 * and what it keeps through the {@link ZooKeeperHaServices} for the leaders after it — the
 * submitted jobs with their jars, the jobs' results, and per job the checkpoint id counter and the
 * completed-checkpoint store, every write fenced by the epoch.
 */
final class LeaderSession {

  private static final Logger LOG = LoggerFactory.getLogger(LeaderSession.class);

  /**
   * Bits of an attempt number below the epoch: the attempts of a job that the leader of epoch
   * {@code e} deploys are numbered from {@code e << 16}, above those of every earlier leader.
   */
  private static final int ATTEMPT_BITS = 16;

  private final ZooKeeperHaServices services;
  private final LeaderEpoch epoch;
  private final SubmittedJobStore submitted;
  private final JobResultStore results;

  LeaderSession(ZooKeeperHaServices services, LeaderEpoch epoch) {
    this.services = services;
    this.epoch = epoch;
    this.submitted = services.submittedJobStore();
    this.results = services.jobResultStore();
  }

  LeaderEpoch epoch() {
    return epoch;
  }

  /**
   * How a job master of this term is made for job {@code jobId}; one that {@code recovered} from an
   * earlier leader adopts the tasks that leader left running, unless adoption is turned off.
   */
  JobMaster.Setup setup(JobID jobId, boolean recovered) {
    return new JobMaster.Setup(
        jobId,
        checkpointRecovery(),
        Math.toIntExact(epoch.value() << ATTEMPT_BITS),
        recovered && !adoptionWait().isZero());
  }

  /**
   * How long a job master of this term waits for the TaskManagers to offer the tasks of a job it
   * took over: as long as they keep them ({@code high-availability.jobmanager-loss-grace}).
   */
  Duration adoptionWait() {
    return services.settings().jobManagerLossGrace();
  }

  private CheckpointRecoveryFactory checkpointRecovery() {
    return new CheckpointRecoveryFactory() {
      @Override
      public CheckpointIDCounter createCheckpointIdCounter(String jobId, long lastId) {
        return services.checkpointIdCounter(jobId, lastId);
      }

      @Override
      public CompletedCheckpointStore createCompletedCheckpointStore(
          String jobId,
          int numRetained,
          LongFunction<String> pointerOf,
          Configuration jobConfiguration) {
        var store =
            services.completedCheckpointStore(
                jobId, epoch, numRetained, pointerOf, jobConfiguration);
        for (String problem : store.recoveryProblems()) {
          LOG.warn("Recovering the checkpoints of job {}: {}", jobId, problem);
        }
        return store;
      }
    };
  }

  /** Records a job before it starts, with its jar, so that a later leader can run it again. */
  void jobSubmitted(SubmittedJob job, Path jar) throws IOException {
    submitted.put(epoch, job, jar);
  }

  /**
   * Records how a job ended, its clean-up still to do (Flink's dirty job result): from now on no
   * later leader runs it again. Before the job's checkpoints are deleted.
   *
   * @throws io.weir.cluster.ha.FencedException if a newer leader took over
   */
  void jobReachedEnd(JobResult result) {
    results.createDirty(epoch, result);
  }

  /**
   * The job's clean-up is done: forgets its submission and marks its result clean (recording the
   * result first if {@link #jobReachedEnd} did not).
   */
  void jobEnded(JobResult result) throws IOException {
    if (!results.hasResult(result.jobId())) {
      results.createDirty(epoch, result);
    }
    submitted.remove(epoch, result.jobId());
    results.markClean(epoch, result.jobId());
  }

  /**
   * The submitted jobs without a result, each with its jar copied into {@code jars}: what this
   * leader runs again. A job whose result is recorded but whose submission was not yet forgotten is
   * forgotten now.
   */
  List<SubmittedJob> jobsToRecover(JarStore jars) throws IOException {
    List<SubmittedJob> jobs = new ArrayList<>();
    for (String jobId : submitted.jobIds()) {
      var ended = results.get(jobId);
      if (ended.isPresent()) {
        LOG.info("Job {} ended under an earlier leader: it is not run again", jobId);
        if (ended.get().clean() || finishCleanUp(ended.get().result())) {
          submitted.remove(epoch, jobId);
          results.markClean(epoch, jobId);
        }
        continue;
      }
      var job = submitted.get(jobId);
      if (job.isEmpty()) {
        continue; // removed meanwhile
      }
      submitted.restoreJar(job.get().jarId(), jars);
      jobs.add(job.get());
    }
    return jobs;
  }

  /**
   * Does what the clean-up of a job that ended under an earlier leader left undone (that leader was
   * lost after it recorded the end): deletes the checkpoints its retention policy deletes, from the
   * checkpoint directory the result names, as the job's master would have — each retained
   * checkpoint, then what no checkpoint references any more, then their pointers in ZooKeeper.
   * Failures are logged and leave the result dirty, for the next leader to try again.
   *
   * @return whether the clean-up is done
   */
  private boolean finishCleanUp(JobResult result) {
    String directory = result.checkpointsToDelete();
    if (directory == null) {
      return true; // nothing to delete: kept by the retention policy, or no files
    }
    String jobId = result.jobId();
    try {
      Configuration conf = new Configuration(services.fileSystemConfiguration());
      conf.set(CheckpointingOptions.CHECKPOINT_STORAGE, "filesystem");
      conf.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY, directory);
      CheckpointStorage storage = CheckpointStorages.create(conf, jobId);
      var store =
          services.completedCheckpointStore(jobId, epoch, 1, storage::externalPointer, conf);
      List<CompletedCheckpoint> retained = store.all();
      for (CompletedCheckpoint checkpoint : retained) {
        storage.discardCheckpoint(checkpoint.checkpointId());
      }
      storage.discardOrphanedState(true);
      store.removeAll();
      LOG.info(
          "Job {} ended {} under an earlier leader, which had not deleted its checkpoints yet:"
              + " deleted {} retained checkpoint(s) and what they alone referenced in {}",
          jobId,
          result.status(),
          retained.size(),
          directory);
      return true;
    } catch (Exception e) {
      LOG.warn(
          "Job {} ended {} under an earlier leader, which had not deleted its checkpoints yet, and"
              + " they cannot be deleted from {} now ({}); its result stays dirty, for the next"
              + " leader to try again, and the job's directory {}/{} may also be deleted by hand",
          jobId,
          result.status(),
          directory,
          e.toString(),
          directory,
          jobId);
      return false;
    }
  }
}
