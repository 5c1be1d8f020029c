package io.weir.cli;

import java.io.PrintStream;
import java.util.Locale;
import java.util.function.LongSupplier;

/**
 * Reports how far a long operation is. On a terminal one line is redrawn in place; otherwise a
 * plain line is printed now and then (every {@link #PLAIN_INTERVAL_NANOS}), so logs stay readable
 * and a short operation prints nothing. Thread-safe: workers report from several threads.
 */
final class Progress {

  static final long TERMINAL_INTERVAL_NANOS = 100_000_000L;
  static final long PLAIN_INTERVAL_NANOS = 2_000_000_000L;

  private final PrintStream out;
  private final boolean terminal;
  private final LongSupplier nanoClock;
  private String task = "";
  private long totalFiles;
  private long totalBytes;
  private long doneFiles;
  private long doneBytes;
  private long lastPrinted;
  private boolean lineOpen;

  Progress(PrintStream out, boolean terminal, LongSupplier nanoClock) {
    this.out = out;
    this.terminal = terminal;
    this.nanoClock = nanoClock;
  }

  /** To standard error, redrawn in place when the process runs on a terminal. */
  // Weir runs on Java 17, where System.console() is null unless stdin and stdout are a terminal;
  // on Java 22 and newer this needs Console.isTerminal().
  @SuppressWarnings("SystemConsoleNull")
  static Progress onStandardError() {
    return new Progress(System.err, System.console() != null, System::nanoTime);
  }

  /** Starts a task of {@code files} files of {@code bytes} bytes in all. */
  synchronized void start(String task, long files, long bytes) {
    this.task = task;
    this.totalFiles = files;
    this.totalBytes = bytes;
    this.doneFiles = 0;
    this.doneBytes = 0;
    this.lastPrinted = nanoClock.getAsLong();
  }

  /** One more file of {@code bytes} bytes is done. */
  synchronized void advance(long bytes) {
    doneFiles++;
    doneBytes += bytes;
    long now = nanoClock.getAsLong();
    long interval = terminal ? TERMINAL_INTERVAL_NANOS : PLAIN_INTERVAL_NANOS;
    if (now - lastPrinted >= interval) {
      lastPrinted = now;
      String line =
          String.format(
              Locale.ROOT,
              "%s: %d of %d files, %s of %s (%d%%)",
              task,
              doneFiles,
              totalFiles,
              Sizes.format(doneBytes),
              Sizes.format(totalBytes),
              totalBytes == 0 ? 100 : doneBytes * 100 / totalBytes);
      if (terminal) {
        out.print("\r\033[K" + line);
        lineOpen = true;
      } else {
        out.println(line);
      }
      out.flush();
    }
  }

  /** Clears the line drawn on a terminal, so what follows starts on a clean line. */
  synchronized void finish() {
    if (lineOpen) {
      out.print("\r\033[K");
      out.flush();
      lineOpen = false;
    }
  }
}
