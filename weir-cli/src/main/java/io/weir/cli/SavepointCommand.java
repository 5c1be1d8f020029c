package io.weir.cli;

import io.weir.cluster.client.ClusterClient;
import io.weir.runtime.storage.CompletedCheckpointLocation;
import io.weir.runtime.storage.FileSystem;
import io.weir.runtime.storage.FileSystemCheckpointStorage;
import io.weir.runtime.storage.FileSystems;
import io.weir.runtime.storage.RetainedCheckpoint;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.net.URI;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code weir savepoint JOB [DIR]}: a savepoint while the job goes on; {@code weir savepoint
 * --dispose PATH}: deletes a savepoint.
 */
@Command(
    name = "savepoint",
    mixinStandardHelpOptions = true,
    description =
        "Take a savepoint of a running job (it keeps running). Prints the savepoint's path, which"
            + " 'weir run -s PATH' resumes from. With --dispose PATH: delete that savepoint.")
final class SavepointCommand implements Callable<Integer> {

  @Mixin ClientOptions client;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Parameters(index = "0", arity = "0..1", paramLabel = "JOB", description = "The job's id.")
  String jobId;

  @Parameters(
      index = "1",
      arity = "0..1",
      paramLabel = "DIR",
      description =
          "Where the savepoint's directory is created; default the job's"
              + " execution.checkpointing.savepoint-dir.")
  String directory;

  @Option(
      names = {"-d", "--dispose"},
      paramLabel = "PATH",
      description =
          "Delete the savepoint at PATH (its directory, or its _metadata file): refused for a"
              + " path that holds no savepoint, such as a job's checkpoint.")
  String dispose;

  @Override
  public Integer call() throws Exception {
    if (dispose != null) {
      if (jobId != null) {
        throw new CommandLine.ParameterException(
            spec.commandLine(), "--dispose PATH takes no job id: give one or the other");
      }
      dispose(dispose);
      System.out.println("Savepoint '" + dispose + "' disposed.");
      return 0;
    }
    if (jobId == null) {
      throw new CommandLine.ParameterException(
          spec.commandLine(), "Give the job's id (or --dispose PATH to delete a savepoint)");
    }
    ClusterClient c = client.client();
    System.err.println("Triggering savepoint for job " + jobId + ".");
    String trigger = c.triggerSavepoint(jobId, directory);
    String path = c.awaitSavepoint(jobId, trigger, SavepointWait.onStandardError(jobId));
    System.out.println("Savepoint completed. Path: " + path);
    return 0;
  }

  /**
   * Deletes the savepoint at {@code path}: its {@code _metadata} first, so that a deletion cut
   * short never leaves what looks like a whole savepoint, then its directory, which holds only what
   * the savepoint wrote (Weir writes each savepoint self-contained, into a directory of its own).
   */
  static void dispose(String path) throws IOException {
    String metadataFile = FileSystemCheckpointStorage.METADATA_FILE;
    RetainedCheckpoint found;
    try {
      found = CompletedCheckpointLocation.read(path, null);
    } catch (FileNotFoundException e) {
      throw new CommandFailure(path + " does not exist: nothing to dispose", e);
    } catch (IOException e) {
      throw new CommandFailure(
          path + " is not a savepoint (" + stripPrefix(e.getMessage(), path) + ")", e);
    }
    URI given = FileSystems.toUri(path);
    FileSystem fs = FileSystems.get(given);
    String local = FileSystems.pathOf(given).replaceAll("/+$", "");
    boolean isMetadata = local.endsWith("/" + metadataFile);
    if (!isMetadata
        && !fs.listEntries(local).stream().anyMatch(e -> e.name().equals(metadataFile))) {
      throw new CommandFailure(
          path + " is not a savepoint's directory: give the directory or its " + metadataFile);
    }
    if (!found.checkpoint().savepoint()) {
      throw new CommandFailure(
          path
              + " is checkpoint "
              + found.checkpoint().checkpointId()
              + ", not a savepoint: Weir deletes a job's checkpoints itself (as"
              + " execution.checkpointing.num-retained and the externalized-checkpoint retention"
              + " say); nothing was deleted");
    }
    String dir = isMetadata ? local.substring(0, local.lastIndexOf('/')) : local;
    fs.delete(dir + "/" + metadataFile, false);
    fs.delete(dir, true);
  }

  private static String stripPrefix(String message, String path) {
    return message == null
        ? "unreadable"
        : message.replace("Cannot restore from " + path + ": ", "");
  }
}
