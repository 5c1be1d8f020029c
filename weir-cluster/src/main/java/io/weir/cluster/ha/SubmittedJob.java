package io.weir.cluster.ha;

import java.util.List;
import java.util.Map;

/**
 * A job as a JobManager received it, enough for a new leader to run it again: the program (jar by
 * content hash, entry class, arguments) and the submission's settings. The job graph is not kept:
 * the new leader runs the program's {@code main} again, as the first one did.
 *
 * @param jobId the id the job was given, 32 hex digits
 * @param jobName the job's name, for logs
 * @param jarId the SHA-256 of the jar, 64 hex digits
 * @param entryClass the class whose {@code main} builds the job
 * @param args its arguments
 * @param parallelism the submission's parallelism, or null for the job's own
 * @param settings the submission's settings ({@code -D}), over the job's own
 * @param submittedAt when it was submitted, epoch millis
 */
public record SubmittedJob(
    String jobId,
    String jobName,
    String jarId,
    String entryClass,
    List<String> args,
    Integer parallelism,
    Map<String, String> settings,
    long submittedAt) {

  public SubmittedJob {
    args = List.copyOf(args);
    settings = Map.copyOf(settings);
  }
}
