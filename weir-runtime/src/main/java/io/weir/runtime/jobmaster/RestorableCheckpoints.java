package io.weir.runtime.jobmaster;

import io.weir.runtime.checkpoint.CheckpointCoordinator;
import io.weir.runtime.checkpoint.CompletedCheckpoint;
import io.weir.runtime.checkpoint.CorruptCheckpointException;
import io.weir.runtime.recovery.RestoreVerifier;
import io.weir.runtime.storage.CheckpointStorage;
import io.weir.runtime.storage.RetainedCheckpoint;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which checkpoint an attempt of a job restores: the newest that verifies intact (see {@link
 * RestoreVerifier}) of the job's retained checkpoints, newest first, then the one it was started
 * from. A checkpoint that cannot be restored (a {@link CorruptCheckpointException}: a file missing
 * or damaged) is remembered and never tried again. A read that merely failed (a timeout) marks
 * nothing: the attempt fails as any other, and the next one tries the same checkpoint, since
 * falling back to an older checkpoint after the sinks committed a newer one's transactions would
 * commit its records twice.
 *
 * <p>Not thread-safe: its {@link Scheduler} calls it under the scheduler's lock.
 */
final class RestorableCheckpoints {

  private static final Logger LOG = LoggerFactory.getLogger(RestorableCheckpoints.class);

  private final String jobName;
  private final CheckpointCoordinator coordinator;
  private final CheckpointStorage storage;
  private final RestoreVerifier verifier;
  private final RetainedCheckpoint initialRestore;

  /** Checkpoints that cannot be restored, with why; never tried again. */
  private final Map<Long, String> unrestorable = new HashMap<>();

  /**
   * @param coordinator whose retained checkpoints are the candidates
   * @param storage the job's own checkpoint storage, where those are
   * @param initialRestore the checkpoint the job was started from, or null
   */
  RestorableCheckpoints(
      String jobName,
      CheckpointCoordinator coordinator,
      CheckpointStorage storage,
      RestoreVerifier verifier,
      RetainedCheckpoint initialRestore) {
    this.jobName = jobName;
    this.coordinator = coordinator;
    this.storage = storage;
    this.verifier = verifier;
    this.initialRestore = initialRestore;
  }

  /**
   * What the first attempt restores: the newest restorable checkpoint the completed-checkpoint
   * store recovered (a job a new leader took over), else the checkpoint given at submission, which
   * was verified then; null for a fresh start.
   *
   * @throws IllegalStateException when checkpoints were recovered but none can be restored
   * @throws IOException when a checkpoint could not be verified now (a read failed): try again
   */
  RetainedCheckpoint forFirstAttempt() throws IOException {
    if (!coordinator.retained().isEmpty()) {
      RetainedCheckpoint recovered = newest();
      LOG.info(
          "Job '{}' recovers from its checkpoint {}, the newest restorable one of those recorded",
          jobName,
          recovered.checkpoint().checkpointId());
      return recovered;
    }
    if (initialRestore != null) {
      LOG.info(
          "Job '{}' resumes from checkpoint {} at {}",
          jobName,
          initialRestore.checkpoint().checkpointId(),
          initialRestore.externalPointer());
    }
    return initialRestore;
  }

  /**
   * The newest checkpoint that verifies intact: the job's retained checkpoints newest first, then
   * the one it was started from; null when there is none at all. One that does not verify is marked
   * unrestorable.
   *
   * @throws IllegalStateException when checkpoints exist but none can be restored: starting from
   *     empty state would break exactly-once silently
   * @throws IOException when a checkpoint could not be verified now (a read failed, the file may be
   *     intact): nothing is marked, the next call tries it again
   */
  RetainedCheckpoint newest() throws IOException {
    List<RetainedCheckpoint> candidates = new ArrayList<>();
    for (CompletedCheckpoint c : coordinator.retained()) {
      candidates.add(new RetainedCheckpoint(c, "chk-" + c.checkpointId(), storage));
    }
    if (initialRestore != null) {
      candidates.add(initialRestore);
    }
    List<String> problems = new ArrayList<>();
    for (RetainedCheckpoint candidate : candidates) {
      long id = candidate.checkpoint().checkpointId();
      String unreadable = unrestorable.get(id);
      if (unreadable == null) {
        try {
          verifier.verify(candidate.checkpoint(), candidate.storage());
          return candidate;
        } catch (CorruptCheckpointException e) {
          markUnrestorable(id, e.getMessage());
          unreadable = e.getMessage();
        }
      }
      problems.add("checkpoint " + id + ": " + unreadable);
    }
    if (!candidates.isEmpty()) {
      throw new IllegalStateException(
          "None of the retained checkpoints can be restored, and starting from empty state"
              + " would lose exactly-once: "
              + String.join("; ", problems)
              + ". Raise execution.checkpointing.num-retained to keep more fallbacks.");
    }
    return null;
  }

  /**
   * Whether an attempt that restores {@code restored} claims it: its state backends go on as the
   * databases they were, under their ids, and their next checkpoints refer to the restored shared
   * files (see {@link io.weir.runtime.checkpoint.TaskRestore#claimed}). Only for the newest of the
   * job's own retained checkpoints. After a fallback to an older one the newer one is still
   * retained and its shared files registered under the names the restored databases would write
   * again with other contents, and the registry would take those uploads for duplicates and hand
   * out the newer checkpoint's files: the databases start under new ids instead and upload their
   * files once more, as after a restore of a checkpoint the job does not own (Flink's NO_CLAIM
   * mode, whose first checkpoint is a full one).
   */
  boolean claims(RetainedCheckpoint restored) {
    CompletedCheckpoint newest = coordinator.latestCompleted();
    return restored.storage() == storage
        && newest != null
        && newest.checkpointId() == restored.checkpoint().checkpointId();
  }

  /** Checkpoint {@code id} cannot be restored: no attempt tries it again. */
  void markUnrestorable(long id, String why) {
    if (unrestorable.putIfAbsent(id, why) == null) {
      LOG.warn(
          "Checkpoint {} of job '{}' cannot be restored ({}); falling back to the previous"
              + " retained checkpoint",
          id,
          jobName,
          why);
    }
  }
}
