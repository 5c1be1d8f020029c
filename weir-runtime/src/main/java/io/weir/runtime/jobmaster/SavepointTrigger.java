package io.weir.runtime.jobmaster;

import io.weir.api.JobExecutionResult;
import io.weir.api.JobID;
import io.weir.api.JobStatus;
import io.weir.api.config.CheckpointingOptions;
import io.weir.api.config.Configuration;
import io.weir.runtime.checkpoint.CheckpointCoordinator;
import io.weir.runtime.checkpoint.CheckpointException;
import io.weir.runtime.checkpoint.CheckpointOptions;
import io.weir.runtime.graph.JobGraph;
import io.weir.runtime.storage.FileSystems;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The savepoints a user asks of a job, and stop-with-savepoint (Flink's {@code triggerSavepoint}
 * and {@code stopWithSavepoint}): the directory (the one given, else {@code
 * execution.checkpointing.savepoint-dir}) is checked before the coordinator triggers anything, and
 * a stop-with-savepoint completes only once the job ended after its savepoint. Any thread.
 */
final class SavepointTrigger {

  private final JobID jobId;
  private final JobGraph graph;
  private final CheckpointCoordinator coordinator;
  private final Supplier<JobStatus> terminalStatus;
  private final CompletableFuture<JobExecutionResult> result;
  private final Consumer<Throwable> failOver;

  /**
   * @param terminalStatus the job's status once it ended; null while it runs
   * @param result the job's result
   * @param failOver fails the job's current attempt, so that it resumes from its latest checkpoint
   */
  SavepointTrigger(
      JobID jobId,
      JobGraph graph,
      CheckpointCoordinator coordinator,
      Supplier<JobStatus> terminalStatus,
      CompletableFuture<JobExecutionResult> result,
      Consumer<Throwable> failOver) {
    this.jobId = jobId;
    this.graph = graph;
    this.coordinator = coordinator;
    this.terminalStatus = terminalStatus;
    this.result = result;
    this.failOver = failOver;
  }

  /** A savepoint into {@code directory} (null or blank: the configured one); the job runs on. */
  CompletableFuture<String> trigger(String directory) {
    return savepoint(directory, CheckpointOptions.Type.SAVEPOINT);
  }

  /**
   * A savepoint into {@code directory} after which the job ends: its sources end their input first
   * when {@code drain}. Completes with the savepoint's path once the job ended. A stop refused
   * before its barriers left (no directory, an unusable one, a job restarting or already stopping)
   * leaves the job as it was; a drain that fails after that fails the job over.
   */
  CompletableFuture<String> stop(String directory, boolean drain) {
    CheckpointOptions.Type type =
        drain
            ? CheckpointOptions.Type.SAVEPOINT_TERMINATE
            : CheckpointOptions.Type.SAVEPOINT_SUSPEND;
    String target;
    try {
      target = checkedTarget(directory);
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
    CompletableFuture<String> savepoint = coordinator.triggerSavepoint(target, type);
    CompletableFuture<String> stopped = new CompletableFuture<>();
    savepoint.whenComplete(
        (path, failure) -> {
          if (failure != null) {
            if (drain && terminalStatus.get() == null && !refused(failure)) {
              // The sources ended their input for the savepoint: the job cannot read on where it
              // was, so it fails over and resumes from its latest checkpoint.
              failOver.accept(
                  new IllegalStateException(
                      "Stop-with-savepoint with drain of job '"
                          + graph.jobName()
                          + "' failed after the sources ended their input: "
                          + failure.getMessage(),
                      failure));
            }
            stopped.completeExceptionally(failure);
            return;
          }
          result.whenComplete(
              (r, jobFailure) -> {
                if (jobFailure != null) {
                  stopped.completeExceptionally(
                      new IllegalStateException(
                          "Savepoint " + path + " completed, but then the job failed", jobFailure));
                } else {
                  stopped.complete(path);
                }
              });
        });
    return stopped;
  }

  private static boolean refused(Throwable failure) {
    Throwable cause =
        failure instanceof CompletionException && failure.getCause() != null
            ? failure.getCause()
            : failure;
    return cause instanceof CheckpointException c && c.isRefused();
  }

  private CompletableFuture<String> savepoint(String directory, CheckpointOptions.Type type) {
    String target;
    try {
      target = checkedTarget(directory);
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
    return coordinator.triggerSavepoint(target, type);
  }

  /**
   * The savepoint directory to use: {@code directory}, or the configured one; throws, naming what
   * to do, when there is none, it cannot be used, or the job has ended.
   */
  private String checkedTarget(String directory) {
    Configuration conf = graph.configuration();
    String target =
        directory != null && !directory.isBlank()
            ? directory
            : conf.getOptional(CheckpointingOptions.SAVEPOINT_DIRECTORY).orElse(null);
    String what = "Cannot take a savepoint of job '" + graph.jobName() + "' (" + jobId + "): ";
    if (target == null) {
      throw new IllegalArgumentException(
          what
              + "no savepoint directory was given and "
              + CheckpointingOptions.SAVEPOINT_DIRECTORY.key()
              + " is not set. Give a directory, or set "
              + CheckpointingOptions.SAVEPOINT_DIRECTORY.key()
              + ".");
    }
    JobStatus ended = terminalStatus.get();
    if (ended != null) {
      throw new IllegalStateException(what + "the job has ended (" + ended + ")");
    }
    try {
      FileSystems.checkAccess(FileSystems.toUri(target), conf);
    } catch (RuntimeException e) {
      throw new IllegalArgumentException(
          what + "the savepoint directory " + target + " cannot be used: " + e.getMessage(), e);
    }
    return target;
  }
}
