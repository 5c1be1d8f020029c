package io.weir.benchmarks.w8;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * When a task instance processed records, coarsely, the same way on both engines: every instance of
 * the keyed function, in whatever TaskManager process it runs, appends lines {@code <epoch micros>
 * <records so far>} to a file of its own in a directory all processes of the run share: one for its
 * first record, then one whenever at least {@link #STEP_MICROS} passed since the last (the clock is
 * read every {@link #CHECK_EVERY} records). An instance that processes nothing writes nothing, so
 * the merged lines of all instances show when the job processed and when it did not ({@link
 * FailoverTimeline}). Each line is one unbuffered write: what a killed or cancelled task wrote is
 * there. One instance per task thread; nothing is shared.
 */
public final class ProcessingTrace implements AutoCloseable {
  /** The least time between two lines of one instance. */
  static final long STEP_MICROS = 10_000;

  /** Records between two readings of the clock (a power of two). */
  static final int CHECK_EVERY = 64;

  private final OutputStream out;
  private long records;
  private long lastMicros;

  private ProcessingTrace(OutputStream out) {
    this.out = out;
  }

  /** A new trace file in {@code directory}; null for an empty {@code directory} (no trace). */
  public static ProcessingTrace open(String directory) {
    if (directory.isEmpty()) {
      return null;
    }
    try {
      Path file = Files.createTempFile(Path.of(directory), "trace-", ".txt");
      return new ProcessingTrace(Files.newOutputStream(file));
    } catch (IOException e) {
      throw new UncheckedIOException("W8: cannot open a processing trace in " + directory, e);
    }
  }

  /** Counts one record processed now, and writes a line if one is due. */
  public void record() {
    long n = ++records;
    if (n != 1 && (n & (CHECK_EVERY - 1)) != 0) {
      return;
    }
    long now = FirstRecordMarker.epochMicros(Instant.now());
    if (n == 1 || now - lastMicros >= STEP_MICROS) {
      lastMicros = now;
      try {
        out.write((now + " " + n + "\n").getBytes(StandardCharsets.US_ASCII));
      } catch (IOException e) {
        throw new UncheckedIOException("W8: cannot write a processing trace", e);
      }
    }
  }

  @Override
  public void close() throws IOException {
    out.close();
  }

  /** One line of a trace: when, and how many records the instance had processed by then. */
  public record Stamp(long micros, long records) {}

  /**
   * Every trace in {@code directory}, one list per task instance, oldest line first; a last line
   * still being written (no line end yet) is left out.
   */
  public static List<List<Stamp>> read(Path directory) throws IOException {
    List<List<Stamp>> traces = new ArrayList<>();
    try (Stream<Path> files = Files.list(directory)) {
      for (Path file :
          files.filter(f -> f.getFileName().toString().startsWith("trace-")).toList()) {
        String text = Files.readString(file, StandardCharsets.US_ASCII);
        List<Stamp> stamps = new ArrayList<>();
        int start = 0;
        for (int end = text.indexOf('\n'); end >= 0; end = text.indexOf('\n', start)) {
          String line = text.substring(start, end);
          int space = line.indexOf(' ');
          stamps.add(
              new Stamp(
                  Long.parseLong(line.substring(0, space)),
                  Long.parseLong(line.substring(space + 1))));
          start = end + 1;
        }
        if (!stamps.isEmpty()) {
          traces.add(stamps);
        }
      }
    }
    return traces;
  }
}
