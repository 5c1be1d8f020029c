package io.weir.cli;

import java.io.PrintWriter;
import java.io.StringWriter;
import picocli.CommandLine;

/** Runs {@code weir} in this JVM, as {@link WeirCli#main} does, capturing what it prints. */
final class Cli {

  /** What the command wrote and its exit code. */
  record Result(int exitCode, String out, String err) {
    @Override
    public String toString() {
      return "exit " + exitCode + "\n--- stdout\n" + out + "--- stderr\n" + err;
    }
  }

  private Cli() {}

  static Result run(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine commandLine =
        WeirCli.commandLine().setOut(new PrintWriter(out, true)).setErr(new PrintWriter(err, true));
    int exit = commandLine.execute(args);
    return new Result(exit, out.toString(), err.toString());
  }
}
