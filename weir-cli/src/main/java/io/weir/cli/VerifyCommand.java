package io.weir.cli;

import io.weir.runtime.checkpoint.CompletedCheckpoint;
import io.weir.runtime.checkpoint.OperatorState;
import io.weir.runtime.checkpoint.OperatorSubtaskState;
import io.weir.runtime.state.KeyedStateBackendFactory;
import io.weir.runtime.state.KeyedStateBackends;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
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
      "Checks its metadata (magic number, version, checksum)"
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

  @Option(
      names = "--state-backend",
      paramLabel = "TYPE",
      description =
          "Also check that state backend TYPE (state.backend.type: hashmap, rocksdb) can restore"
              + " the keyed state: the heap backend cannot read native RocksDB files.")
  String stateBackend;

  @Override
  public Integer call() throws Exception {
    PrintWriter out = spec.commandLine().getOut();
    KeyedStateBackendFactory backend =
        stateBackend == null ? null : KeyedStateBackends.factory(stateBackend);
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
                : new ArrayList<>(
                    verifier.verify(found.checkpoint(), found.name(), Progress.onStandardError()));
        if (found.checkpoint() != null && found.problem() != null) {
          problems.add(0, found.problem());
        }
        if (found.checkpoint() != null && backend != null) {
          problems.addAll(backendProblems(found.checkpoint().checkpoint(), backend));
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

  /**
   * Why {@code backend} cannot restore the keyed state of {@code checkpoint}, once per operator.
   */
  private static List<String> backendProblems(
      CompletedCheckpoint checkpoint, KeyedStateBackendFactory backend) {
    List<String> problems = new ArrayList<>();
    for (OperatorState op : checkpoint.operators()) {
      for (OperatorSubtaskState subtask : op.subtasks()) {
        String problem =
            subtask.keyed() == null
                ? null
                : backend.restoreProblem(
                    subtask.keyed(), op.operatorName(), checkpoint.checkpointId());
        if (problem != null) {
          problems.add(problem);
          break;
        }
      }
    }
    return problems;
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
