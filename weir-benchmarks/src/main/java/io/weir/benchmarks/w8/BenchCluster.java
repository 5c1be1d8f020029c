package io.weir.benchmarks.w8;

import java.io.IOException;
import java.util.List;

/**
 * A cluster of one JobManager and TaskManager processes of equal slots on 127.0.0.1, Weir's or
 * Flink's, as {@link W8Run} drives it. Used from the benchmark's main thread; {@link #close} kills
 * every process it started.
 */
interface BenchCluster extends AutoCloseable {

  /** Starts one more TaskManager and returns once the JobManager lists it. */
  JvmProcess startTaskManager() throws IOException, InterruptedException;

  /**
   * Submits W8's job (its jar included) and returns the job's id once the JobManager has it.
   *
   * @param markerDir where the keyed function stamps its first records ({@link FirstRecordMarker});
   *     empty for none
   * @param traceDir where the keyed function traces when it processed ({@link ProcessingTrace});
   *     empty for none
   */
  String submit(long records, String markerDir, String traceDir) throws Exception;

  /** The job's state as the REST API names it: RUNNING, FINISHED, FAILED, ... */
  String state(String jobId) throws IOException, InterruptedException;

  /**
   * When the job ended by the JobManager's clock (epoch milliseconds, the REST API's {@code
   * end-time}), or -1 while it runs.
   */
  long endTimeMillis(String jobId) throws IOException, InterruptedException;

  /** Checkpoints of the job completed so far. */
  long completedCheckpoints(String jobId) throws IOException, InterruptedException;

  /** The failures in the job's exception history, oldest first. */
  List<Failure> failures(String jobId) throws IOException, InterruptedException;

  /** Every process started so far, the JobManager first, killed ones included. */
  List<JvmProcess> processes();

  /** One entry of a job's exception history: when the JobManager recorded it, and what. */
  record Failure(long epochMillis, String what) {}

  @Override
  void close();
}
