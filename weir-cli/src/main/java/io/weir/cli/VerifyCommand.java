package io.weir.cli;

import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code weir verify PATH}: checks every checksum and every reference of a checkpoint, or of every
 * completed checkpoint of a job's checkpoint directory, and says which can be restored. Reads only.
 */
@Command(
    name = "verify",
    mixinStandardHelpOptions = true,
    description = {
      "Check that a checkpoint is intact and can be restored.",
      "Check that a checkpoint can be restored: its metadata (magic number, version, checksum)"
          + " and every state file it references, shared files of incremental RocksDB"
          + " checkpoints included (present, size, CRC-32). Prints one line per problem and a"
          + " verdict per checkpoint. Reads only; progress goes to standard error.",
    },
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {
      "0:every checkpoint can be restored",
      "1:a checkpoint cannot be restored, or PATH is no checkpoint",
      "2:invalid arguments"
    })
final class VerifyCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Parameters(
      paramLabel = "PATH",
      description =
          "A checkpoint's chk-<n> directory, its _metadata file, or a job's checkpoint directory"
              + " (then every completed checkpoint in it); a local path or a URI.")
  String path;

  @Override
  public Integer call() throws Exception {
    PrintWriter out = spec.commandLine().getOut();
    CheckpointPaths.Target target = CheckpointPaths.find(path);
    int bad = 0;
    try (StateFileVerifier verifier = new StateFileVerifier()) {
      for (String name : target.incomplete()) {
        out.println(name + ": has no _metadata: it never completed (not a checkpoint; ignored)");
      }
      for (CheckpointPaths.Found found : target.checkpoints()) {
        List<String> problems =
            found.checkpoint() == null
                ? List.of(found.problem())
                : new java.util.ArrayList<>(
                    verifier.verify(found.checkpoint(), found.name(), Progress.onStandardError()));
        if (found.checkpoint() != null && found.problem() != null) {
          problems.add(0, found.problem());
        }
        for (String problem : problems) {
          out.println(found.name() + ": " + problem);
        }
        if (problems.isEmpty()) {
          out.println(found.name() + ": OK, can be restored" + describe(found));
        } else {
          bad++;
          out.println(
              found.name()
                  + ": CANNOT be restored ("
                  + problems.size()
                  + (problems.size() == 1 ? " problem" : " problems")
                  + ")");
        }
      }
    }
    if (target.jobDirectory()) {
      boolean unreadable = target.checkpoints().stream().anyMatch(f -> f.checkpoint() == null);
      for (String file : CheckpointPaths.unreferencedFiles(path, target)) {
        out.println(
            file
                + ": no completed checkpoint refers to it"
                + (unreadable ? " (unless one whose metadata cannot be read)" : "")
                + "; not needed for a restore");
      }
      out.println(
          (target.checkpoints().size() - bad)
              + " of "
              + target.checkpoints().size()
              + " completed checkpoints can be restored");
    }
    if (target.checkpoints().isEmpty()) {
      out.println(path + ": holds no completed checkpoint, so there is nothing to restore");
    }
    out.flush();
    return bad == 0 && !target.checkpoints().isEmpty() ? 0 : WeirCli.EXIT_FAILURE;
  }

  private static String describe(CheckpointPaths.Found found) {
    var checkpoint = found.checkpoint().checkpoint();
    return " (checkpoint "
        + checkpoint.checkpointId()
        + " of job "
        + checkpoint.jobId()
        + ", "
        + checkpoint.operators().size()
        + " operators)";
  }
}
