package io.weir.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import picocli.CommandLine;

/**
 * {@code --help} on every command and subcommand of the real {@code ./weir} launcher prints that
 * command's usage and exits 0, even for commands whose parameters are required. The commands are
 * read from the CLI's own model, so a command added later is covered without touching this test.
 */
@Timeout(300)
class HelpTest {

  @TempDir Path dir;

  /** Every command path below {@code weir}, e.g. {@code [cluster, start]}. */
  static Stream<List<String>> commands() {
    List<List<String>> paths = new ArrayList<>();
    collect(WeirCli.commandLine(), new ArrayList<>(), paths);
    return paths.stream();
  }

  private static void collect(CommandLine command, List<String> path, List<List<String>> out) {
    for (var sub : command.getSubcommands().entrySet()) {
      List<String> subPath = new ArrayList<>(path);
      subPath.add(sub.getKey());
      out.add(subPath);
      collect(sub.getValue(), subPath, out);
    }
  }

  @Test
  void theModelHasEveryCommandOfTheDocs() {
    assertThat(commands().map(p -> String.join(" ", p)))
        .contains(
            "demo",
            "run",
            "list",
            "cancel",
            "savepoint",
            "stop",
            "checkpoints",
            "inspect",
            "verify",
            "jobmanager",
            "taskmanager",
            "cluster",
            "cluster start",
            "cluster stop");
  }

  @ParameterizedTest(name = "weir {0} --help")
  @MethodSource("commands")
  void helpPrintsTheUsageAndExitsZero(List<String> command) throws Exception {
    List<String> args = new ArrayList<>(command);
    args.add("--help");

    WeirProcess.Result result = WeirProcess.run(dir, args.toArray(String[]::new));

    assertThat(result.exitCode()).as(result.toString()).isZero();
    assertThat(result.out())
        .as(result.toString())
        .startsWith("Usage: weir " + String.join(" ", command));
    assertThat(result.out()).contains("-h, --help");
    assertThat(result.err()).as(result.toString()).isEmpty();
  }

  @Test
  void theLaunchersOwnHelpListsTheCommands() throws Exception {
    WeirProcess.Result result = WeirProcess.run(dir, "--help");

    assertThat(result.exitCode()).as(result.toString()).isZero();
    assertThat(result.out()).startsWith("Usage: weir").contains("cluster").contains("savepoint");
  }
}
