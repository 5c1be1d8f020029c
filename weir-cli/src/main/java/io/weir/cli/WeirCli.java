package io.weir.cli;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;

/**
 * The {@code weir} command. A failing command prints what went wrong, one line per cause, and exits
 * with {@link #EXIT_FAILURE}; {@code --verbose} adds the stack trace. Bad arguments exit with
 * {@link #EXIT_USAGE} after picocli's usage message.
 */
@Command(
    name = "weir",
    mixinStandardHelpOptions = true,
    version = "weir 0.1.0-SNAPSHOT",
    description = "Run and inspect Weir stream-processing jobs.",
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {"0:success", "1:the command failed", "2:invalid arguments"},
    subcommands = {
      DemoCommand.class,
      VerifyCommand.class,
      InspectCommand.class,
      CheckpointsCommand.class,
      JobManagerCommand.class,
      TaskManagerCommand.class,
      RunCommand.class,
      InfoCommand.class,
      ListCommand.class,
      CancelCommand.class,
      CheckpointCommand.class,
      SavepointCommand.class,
      StopCommand.class,
      ClusterCommand.class,
      KeysCommand.class,
      io.weir.cli.migrate.MigrateCommand.class
    })
public final class WeirCli implements Runnable {

  /** Exit code of a command that failed. */
  public static final int EXIT_FAILURE = 1;

  /** Exit code of a command line that does not parse. */
  public static final int EXIT_USAGE = 2;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Option(
      names = "--verbose",
      scope = ScopeType.INHERIT,
      description = "On failure, print the stack trace too.")
  boolean verbose;

  @Override
  public void run() {
    spec.commandLine().usage(System.out);
  }

  /** The command line of {@code weir}, with its error handling. */
  public static CommandLine commandLine() {
    CommandLine commandLine = new CommandLine(new WeirCli());
    // Every command takes --help and --version; its version is the launcher's.
    shareVersion(commandLine, commandLine.getCommandSpec().version());
    // As flink's: everything after the jar is the job's, options included (run JAR --input x).
    for (String jarCommand : List.of("run", "info")) {
      commandLine.getSubcommands().get(jarCommand).setStopAtPositional(true);
    }
    commandLine.setExecutionExceptionHandler(
        (error, failed, parseResult) -> {
          PrintWriter err = failed.getErr();
          err.println("weir " + failed.getCommandName() + ": " + describe(error));
          if (parseResult.originalArgs().contains("--verbose")) {
            error.printStackTrace(err);
          } else {
            err.println("(run with --verbose for the stack trace)");
          }
          err.flush();
          return EXIT_FAILURE;
        });
    return commandLine;
  }

  private static void shareVersion(CommandLine command, String[] version) {
    for (CommandLine sub : command.getSubcommands().values()) {
      sub.getCommandSpec().version(version);
      shareVersion(sub, version);
    }
  }

  /**
   * The messages of {@code error} and its causes, each once, joined by "caused by". A {@link
   * CommandFailure} says all a user needs: its causes (the internals) are left to {@code
   * --verbose}; so is the request line of a call the JobManager refused.
   */
  static String describe(Throwable error) {
    List<String> messages = new ArrayList<>();
    for (Throwable t = error; t != null; t = t.getCause()) {
      if (t.getMessage() == null && !messages.isEmpty()) {
        continue; // a cause without a message (ConnectException) adds only its class's name
      }
      String message = message(t);
      if (messages.stream().noneMatch(m -> m.contains(message))) {
        messages.add(message);
      }
      if (t instanceof CommandFailure) {
        break;
      }
    }
    return String.join("\n  caused by: ", messages);
  }

  private static String message(Throwable t) {
    if (t instanceof io.weir.cluster.client.ClusterClient.RefusedException refused
        && !refused.reasons().isEmpty()) {
      return String.join("; ", refused.reasons());
    }
    String message = t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
    // A wrapper whose message is its cause's toString() says the cause's message once more.
    return message.replaceFirst("^[a-z][\\w.]*\\.[A-Z]\\w*(Exception|Error): ", "");
  }

  public static void main(String[] args) {
    System.exit(commandLine().execute(args));
  }
}
