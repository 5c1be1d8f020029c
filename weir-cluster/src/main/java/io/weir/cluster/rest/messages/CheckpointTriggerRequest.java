package io.weir.cluster.rest.messages;

/**
 * {@code POST /jobs/:jobid/checkpoints} (Flink 1.19's): a checkpoint now.
 *
 * @param checkpointType {@code CONFIGURED} (the job's kind; null means this too), {@code FULL} (a
 *     checkpoint that refers to no file of an earlier one: an incremental job uploads its whole
 *     state) or {@code INCREMENTAL} (as {@code CONFIGURED}: a job configured with full checkpoints
 *     takes a full one, as in Flink)
 */
public record CheckpointTriggerRequest(String checkpointType) {}
