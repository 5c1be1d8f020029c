package io.weir.runtime.checkpoint;

import io.weir.api.config.Configuration;
import java.util.List;
import java.util.function.LongFunction;

/**
 * Makes a job's checkpoint id counter and completed-checkpoint store (Flink's {@code
 * CheckpointRecoveryFactory}): in memory for a job whose JobManager does not fail over ({@link
 * #STANDALONE}), on ZooKeeper with high availability, where a new leader recovers both and goes on
 * from them.
 */
public interface CheckpointRecoveryFactory {

  /** The counter of {@code jobId}, whose next id is above {@code lastId} and every id before. */
  CheckpointIDCounter createCheckpointIdCounter(String jobId, long lastId);

  /**
   * The completed checkpoints of {@code jobId}: empty for a new job, those a previous leader
   * recorded for a recovered one (newest first).
   *
   * @param pointerOf the external pointer of a checkpoint id in the job's own storage
   * @param jobConfiguration the job's settings, which make its storage's file system
   */
  CompletedCheckpointStore createCompletedCheckpointStore(
      String jobId,
      int numRetained,
      LongFunction<String> pointerOf,
      Configuration jobConfiguration);

  /** Both in the job master's memory: nothing survives the process. */
  CheckpointRecoveryFactory STANDALONE =
      new CheckpointRecoveryFactory() {
        @Override
        public CheckpointIDCounter createCheckpointIdCounter(String jobId, long lastId) {
          return CheckpointIDCounter.inMemory(lastId);
        }

        @Override
        public CompletedCheckpointStore createCompletedCheckpointStore(
            String jobId,
            int numRetained,
            LongFunction<String> pointerOf,
            Configuration jobConfiguration) {
          return CompletedCheckpointStore.inMemory(numRetained, List.of());
        }
      };
}
