package io.weir.cluster.rest.messages;

/**
 * {@code POST /jobs/:jobid/checkpoints} (Flink 1.19's): a checkpoint now.
 *
 * @param checkpointType {@code CONFIGURED} (the job's kind; null means this too), or Flink's {@code
 *     FULL} / {@code INCREMENTAL}, which Weir refuses: its checkpoints are of the kind the job is
 *     configured with
 */
public record CheckpointTriggerRequest(String checkpointType) {}
