package io.weir.benchmarks.w8;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * How W8 sees "the first record processed after the restore" the same way on both engines: every
 * instance of the keyed function, in whatever TaskManager process it runs, writes the wall-clock
 * time (epoch microseconds) of the first record it processes into a new file of a directory that
 * all processes of the run share. Instances opened before the SIGKILL stamp before it; the earliest
 * stamp after it is the first record of a restored attempt. Called from task threads; each call
 * writes its own file, so nothing is shared.
 */
public final class FirstRecordMarker {
  private FirstRecordMarker() {}

  /** Stamps now into {@code directory}; an empty {@code directory} stamps nothing (no recovery). */
  public static void stamp(String directory) {
    if (directory.isEmpty()) {
      return;
    }
    long micros = epochMicros(Instant.now());
    try {
      Path file = Files.createTempFile(Path.of(directory), "first-", ".tmp");
      Files.writeString(file, Long.toString(micros));
      Files.move(file, file.resolveSibling(file.getFileName().toString().replace(".tmp", ".txt")));
    } catch (IOException e) {
      throw new UncheckedIOException("W8: cannot write a first-record stamp into " + directory, e);
    }
  }

  /** Microseconds since the epoch. */
  public static long epochMicros(Instant instant) {
    return ChronoUnit.MICROS.between(Instant.EPOCH, instant);
  }

  /** Every stamp written into {@code directory}, in epoch microseconds. */
  public static List<Long> read(Path directory) throws IOException {
    List<Long> stamps = new ArrayList<>();
    try (Stream<Path> files = Files.list(directory)) {
      for (Path file : files.filter(f -> f.toString().endsWith(".txt")).toList()) {
        stamps.add(Long.parseLong(Files.readString(file).strip()));
      }
    }
    return stamps;
  }
}
