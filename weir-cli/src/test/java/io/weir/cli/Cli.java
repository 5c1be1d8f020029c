package io.weir.cli;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
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

  /**
   * As {@link #run}, but what the command prints to {@code System.out} and {@code System.err} is
   * captured too, into the same two streams as picocli's writers, as the launcher's process would
   * show it: the commands that talk to a cluster print there. These are this JVM's streams for the
   * time of the command, so one test thread at a time, and nothing else of the JVM may print.
   */
  static Result runCapturingSystemStreams(String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    PrintStream originalOut = System.out;
    PrintStream originalErr = System.err;
    int exit;
    try (PrintStream outStream = new PrintStream(out, true, StandardCharsets.UTF_8);
        PrintStream errStream = new PrintStream(err, true, StandardCharsets.UTF_8)) {
      System.setOut(outStream);
      System.setErr(errStream);
      exit =
          WeirCli.commandLine()
              .setOut(new PrintWriter(outStream, true))
              .setErr(new PrintWriter(errStream, true))
              .execute(args);
    } finally {
      System.setOut(originalOut);
      System.setErr(originalErr);
    }
    return new Result(
        exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }
}
