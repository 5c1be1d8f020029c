package io.weir.runtime.jobmaster;

import io.weir.api.config.CheckpointingOptions;
import io.weir.api.config.Configuration;
import io.weir.runtime.checkpoint.CheckpointCoordinator;
import io.weir.runtime.checkpoint.CompletedCheckpoint;
import io.weir.runtime.checkpoint.CorruptCheckpointException;
import io.weir.runtime.checkpoint.OperatorState;
import io.weir.runtime.graph.JobGraph;
import io.weir.runtime.graph.JobVertex;
import io.weir.runtime.graph.StreamNode;
import io.weir.runtime.recovery.NonRecoverableException;
import io.weir.runtime.recovery.RestoreVerifier;
import io.weir.runtime.recovery.StateSchemaCheck;
import io.weir.runtime.storage.CompletedCheckpointLocation;
import io.weir.runtime.storage.DamagedStateException;
import io.weir.runtime.storage.RetainedCheckpoint;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Resuming a new job from the checkpoint or savepoint its {@code execution.state-recovery.path}
 * names (Flink's {@code Checkpoints.loadAndValidateCheckpoint}): finds the candidates, checks that
 * each operator's state maps to an operator of this job with the same max parallelism and a
 * compatible schema, verifies every file before any task starts, and, in {@code CLAIM} mode, hands
 * the checkpoint to the coordinator to delete once subsumed. Also warns about stateful operators
 * without a uid, whose state would not map to a later version of the job.
 *
 * <p>Runs on the thread that creates the {@link JobMaster}, before anything is deployed.
 */
final class InitialRestore {

  /** The job master's log: this is a part of it, and users look for its lines there. */
  private static final Logger LOG = LoggerFactory.getLogger(JobMaster.class);

  private final JobGraph graph;
  private final Map<String, String> operatorNames;
  private final RestoreVerifier verifier;

  /**
   * @param operatorNames every operator of the job: its id (uid or generated) to its name
   */
  InitialRestore(JobGraph graph, Map<String, String> operatorNames, RestoreVerifier verifier) {
    this.graph = graph;
    this.operatorNames = operatorNames;
    this.verifier = verifier;
  }

  /**
   * The checkpoint to resume from, or null when none is named: found, checked and verified before
   * any task starts. The path may name one checkpoint, which must be intact, or a job's checkpoint
   * directory, whose newest intact checkpoint is taken; the newer ones passed over are logged with
   * the reason.
   */
  RetainedCheckpoint load(Configuration conf) {
    Optional<String> path = conf.getOptional(CheckpointingOptions.SAVEPOINT_PATH);
    if (path.isEmpty()) {
      return null;
    }
    String what = CheckpointingOptions.SAVEPOINT_PATH.key() + " = " + path.get();
    CompletedCheckpointLocation.RestoreCandidates candidates;
    try {
      candidates = CompletedCheckpointLocation.loadRestoreCandidates(path.get(), conf);
    } catch (IOException e) {
      String message = "Cannot resume job '" + graph.jobName() + "' from " + what + ": ";
      if (!DamagedStateException.isDamage(e)) {
        throw new IllegalStateException(
            message + e.getMessage() + ". Submit the job again once the storage answers.", e);
      }
      throw new IllegalArgumentException(message + e.getMessage(), e);
    }
    for (String skipped : candidates.skipped()) {
      LOG.warn("Resuming job '{}' from {}: {}", graph.jobName(), path.get(), skipped);
    }
    boolean ignoreUnclaimed = conf.get(CheckpointingOptions.SAVEPOINT_IGNORE_UNCLAIMED_STATE);
    List<String> problems = new ArrayList<>(candidates.skipped());
    for (RetainedCheckpoint candidate : candidates.checkpoints()) {
      checkCompatible(candidate.checkpoint(), ignoreUnclaimed);
      try {
        verifier.verify(candidate.checkpoint(), candidate.storage());
        return candidate;
      } catch (IOException e) {
        if (!(e instanceof CorruptCheckpointException)) {
          // A read failed; the checkpoint may be intact. Skipping it for an older one would
          // resume from further back than the user's job got.
          throw new IllegalStateException(
              "Cannot resume job '"
                  + graph.jobName()
                  + "' from "
                  + what
                  + ": "
                  + e.getMessage()
                  + ". No checkpoint was skipped for it; submit the job again.",
              e);
        }
        if (!candidates.jobDirectory()) {
          throw new IllegalArgumentException(
              "Cannot resume job '" + graph.jobName() + "' from " + what + ": " + e.getMessage(),
              e);
        }
        String name = "chk-" + candidate.checkpoint().checkpointId();
        problems.add(name + " skipped: " + e.getMessage());
        LOG.warn(
            "Resuming job '{}' from {}: {} skipped: {}",
            graph.jobName(),
            path.get(),
            name,
            e.getMessage());
      }
    }
    throw new IllegalArgumentException(
        "Cannot resume job '"
            + graph.jobName()
            + "' from "
            + what
            + ": no checkpoint in it can be restored: "
            + String.join("; ", problems));
  }

  /**
   * The max parallelism of the operator with id {@code operatorId} in the new job: its task's (the
   * chain's head's), which is what a checkpoint records for every operator of the chain.
   */
  private int maxParallelismOf(String operatorId) {
    for (JobVertex vertex : graph.vertices()) {
      for (StreamNode node : vertex.getChain()) {
        if (node.getOperatorId().equals(operatorId)) {
          return vertex.getMaxParallelism();
        }
      }
    }
    return graph.maxParallelism();
  }

  private void checkCompatible(CompletedCheckpoint checkpoint, boolean ignoreUnclaimed) {
    List<String> unclaimed = new ArrayList<>();
    for (OperatorState op : checkpoint.operators()) {
      boolean hasState = op.subtasks().stream().anyMatch(s -> !s.hasNoState());
      if (!hasState) {
        continue;
      }
      if (!operatorNames.containsKey(op.operatorId())) {
        if (ignoreUnclaimed) {
          LOG.warn(
              "Ignoring state of operator '{}' ({}) of {} {}: not in this job",
              op.operatorName(),
              op.operatorId(),
              checkpoint.savepoint() ? "savepoint" : "checkpoint",
              checkpoint.checkpointId());
        } else {
          unclaimed.add("'" + op.operatorName() + "' (uid " + op.operatorId() + ")");
        }
        continue;
      }
      int maxParallelism = maxParallelismOf(op.operatorId());
      if (op.maxParallelism() != maxParallelism) {
        throw new IllegalStateException(
            "Checkpoint "
                + checkpoint.checkpointId()
                + " was taken with max parallelism "
                + op.maxParallelism()
                + " for operator '"
                + op.operatorName()
                + "' but the job now has "
                + maxParallelism
                + "; keyed state cannot move between different key-group counts. Set"
                + " pipeline.max-parallelism (or the operator's setMaxParallelism) back to "
                + op.maxParallelism()
                + ".");
      }
    }
    if (!unclaimed.isEmpty()) {
      throw new IllegalStateException(
          (checkpoint.savepoint() ? "Savepoint " : "Checkpoint ")
              + checkpoint.checkpointId()
              + " holds state of "
              + unclaimed.size()
              + " operator(s) that job '"
              + graph.jobName()
              + "' does not have: "
              + String.join(", ", unclaimed)
              + ". The operators of this job are: "
              + operatorList()
              + ". Give operators stable uids with .uid(...) so their state maps across job"
              + " versions, or set "
              + CheckpointingOptions.SAVEPOINT_IGNORE_UNCLAIMED_STATE.key()
              + ": true to drop that state.");
    }
    ClassLoader loader = Thread.currentThread().getContextClassLoader();
    try {
      StateSchemaCheck.check(
          checkpoint, graph, loader != null ? loader : InitialRestore.class.getClassLoader());
    } catch (NonRecoverableException e) {
      throw new IllegalStateException(
          "Job '"
              + graph.jobName()
              + "' cannot resume from checkpoint "
              + checkpoint.checkpointId()
              + ": "
              + e.getMessage(),
          e);
    }
  }

  private String operatorList() {
    List<String> names = new ArrayList<>();
    for (JobVertex vertex : graph.vertices()) {
      for (StreamNode node : vertex.getChain()) {
        names.add("'" + node.getName() + "' (uid " + node.getOperatorId() + ")");
      }
    }
    return String.join(", ", names);
  }

  /**
   * Operators that may keep state (sources, keyed operators, sinks) but have no {@code uid(...)}:
   * their generated id changes when operators are added or removed before them, and their state
   * would no longer map to them from a savepoint.
   */
  void warnAboutGeneratedIds() {
    for (JobVertex vertex : graph.vertices()) {
      for (StreamNode node : vertex.getChain()) {
        boolean mayKeepState =
            node.isKeyed() || node.isSource() || !node.isSource() && node.getOperation().isSink();
        if (mayKeepState && node.getUid() == null) {
          LOG.warn(
              "Operator '{}' of job '{}' has no uid: its state is mapped by the generated id '{}',"
                  + " which changes when the job's operators change. Set .uid(\"...\") on it to"
                  + " restore its state from savepoints of other versions of the job.",
              node.getName(),
              graph.jobName(),
              node.getOperatorId());
        }
      }
    }
  }

  /**
   * {@code CLAIM}: the job owns the retained checkpoint it was started from and deletes it once its
   * own checkpoints subsume it. A savepoint is never deleted: Weir does not own savepoints.
   */
  static void claim(RetainedCheckpoint restored, CheckpointCoordinator coordinator) {
    if (restored.checkpoint().savepoint()) {
      LOG.info(
          "{} is CLAIM, but {} is a savepoint, which Weir never deletes",
          CheckpointingOptions.RECOVERY_CLAIM_MODE.key(),
          restored.externalPointer());
      return;
    }
    if (!(restored.storage() instanceof CompletedCheckpointLocation loaded)) {
      return; // one of the job's own checkpoints: its storage retains it
    }
    coordinator.claimRestoredCheckpoint(
        () -> {
          try {
            loaded.discard();
            LOG.info(
                "Deleted the claimed checkpoint {} at {}: subsumed",
                restored.checkpoint().checkpointId(),
                restored.externalPointer());
          } catch (IOException e) {
            LOG.warn(
                "Could not delete the claimed checkpoint at {}", restored.externalPointer(), e);
          }
        });
  }
}
