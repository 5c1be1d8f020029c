package io.weir.cli;

import java.io.PrintStream;

/**
 * Says, while a savepoint is awaited, that it still is: on a terminal one line redrawn in place
 * every poll, otherwise a plain line every two seconds (so a quick savepoint prints none). Called
 * from the polling thread only.
 */
final class SavepointWait implements Runnable {

  private static final long PLAIN_INTERVAL_NANOS = 2_000_000_000L;

  private final PrintStream out;
  private final boolean terminal;
  private final String jobId;
  private final long start = System.nanoTime();
  private long lastPrinted = start;

  private SavepointWait(PrintStream out, boolean terminal, String jobId) {
    this.out = out;
    this.terminal = terminal;
    this.jobId = jobId;
  }

  // Weir runs on Java 17, where System.console() is null unless stdin and stdout are a terminal.
  @SuppressWarnings("SystemConsoleNull")
  static SavepointWait onStandardError(String jobId) {
    return new SavepointWait(System.err, System.console() != null, jobId);
  }

  @Override
  public void run() {
    long now = System.nanoTime();
    if (!terminal && now - lastPrinted < PLAIN_INTERVAL_NANOS) {
      return;
    }
    lastPrinted = now;
    String line =
        "Waiting for the savepoint of job " + jobId + " (" + (now - start) / 1_000_000_000L + " s)";
    if (terminal) {
      out.print("\r\033[K" + line);
    } else {
      out.println(line);
    }
    out.flush();
  }
}
