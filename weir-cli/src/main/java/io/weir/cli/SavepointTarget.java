package io.weir.cli;

import picocli.CommandLine.Parameters;

/** The arguments {@code weir savepoint} and {@code weir stop} share: {@code JOB [DIR]}. */
final class SavepointTarget {

  @Parameters(index = "0", paramLabel = "JOB", description = "The job's id.")
  String jobId;

  @Parameters(
      index = "1",
      arity = "0..1",
      paramLabel = "DIR",
      description =
          "Where the savepoint's directory is created; default the job's"
              + " execution.checkpointing.savepoint-dir.")
  String directory;
}
