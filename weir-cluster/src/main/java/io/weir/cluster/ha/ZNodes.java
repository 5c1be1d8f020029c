package io.weir.cluster.ha;

import java.util.regex.Pattern;

/**
 * Where high availability keeps what in ZooKeeper, below the cluster's namespace ({@code
 * <path.root>/<cluster-id>}):
 *
 * <pre>
 * /leader/latch/...                        the contenders' LeaderLatch nodes (ephemeral)
 * /leader/epoch                            persistent; its version is the current fencing epoch
 * /leader/info                             ephemeral, the leader's: epoch, RPC and REST address
 * /jobs/&lt;job-id&gt;/submitted                pointer to the submitted job in the storage directory
 * /jobs/&lt;job-id&gt;/checkpoint-id-counter    the last checkpoint id handed out (8 bytes)
 * /jobs/&lt;job-id&gt;/checkpoints/&lt;id&gt;         pointer to a retained checkpoint (its metadata's URI)
 * /job-results/&lt;job-id&gt;                   a finished job's result, dirty until cleaned up
 * </pre>
 */
final class ZNodes {

  static final String LEADER_LATCH = "/leader/latch";
  static final String LEADER_EPOCH = "/leader/epoch";
  static final String LEADER_INFO = "/leader/info";
  static final String JOBS = "/jobs";

  /** Which storage directory the cluster of this id keeps its bytes in (JSON). */
  static final String CLUSTER = "/cluster";

  static final String JOB_RESULTS = "/job-results";

  private static final Pattern JOB_ID = Pattern.compile("[0-9a-fA-F]{1,64}");

  private ZNodes() {}

  static String job(String jobId) {
    if (jobId == null || !JOB_ID.matcher(jobId).matches()) {
      throw new IllegalArgumentException("'" + jobId + "' is no job id (hex digits)");
    }
    return JOBS + "/" + jobId;
  }

  static String submitted(String jobId) {
    return job(jobId) + "/submitted";
  }

  static String checkpointIdCounter(String jobId) {
    return job(jobId) + "/checkpoint-id-counter";
  }

  static String checkpoints(String jobId) {
    return job(jobId) + "/checkpoints";
  }

  /** The pointer of checkpoint {@code id}: zero-padded, so that names sort as ids do. */
  static String checkpoint(String jobId, long id) {
    return checkpoints(jobId) + "/" + String.format("%019d", id);
  }

  /**
   * The job's completed stop-with-savepoint (see {@code CompletedCheckpointStore#stopCompleted}).
   */
  static String completedStop(String jobId) {
    return job(jobId) + "/completed-stop";
  }

  static String jobResult(String jobId) {
    job(jobId);
    return JOB_RESULTS + "/" + jobId;
  }
}
