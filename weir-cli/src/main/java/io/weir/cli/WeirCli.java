package io.weir.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code weir} command. */
@Command(
    name = "weir",
    mixinStandardHelpOptions = true,
    version = "weir 0.1.0-SNAPSHOT",
    description = "Run and inspect Weir stream-processing jobs.",
    subcommands = {DemoCommand.class})
public final class WeirCli implements Runnable {

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(System.out);
  }

  public static void main(String[] args) {
    System.exit(new CommandLine(new WeirCli()).execute(args));
  }
}
