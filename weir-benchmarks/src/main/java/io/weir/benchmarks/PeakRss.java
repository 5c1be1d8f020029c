package io.weir.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The peak resident set size of a JVM: the {@code VmHWM} ("high water mark") line of Linux's {@code
 * /proc/<pid>/status}, in kB (1024 bytes), which the kernel keeps for the whole life of the
 * process.
 *
 * <p>Every benchmark child reads its own figure once its measurement is over ({@link ChildMain},
 * just before it exits) and prints it as one {@link #line} after its {@code RESULT}; {@link
 * ChildJvm} adds it to the {@link Result}. Read in the child rather than by the runner because the
 * figure goes with the process: once the child has exited its {@code /proc/<pid>} is gone, so a
 * runner polling it could only report the peak up to its last poll and would miss the job's end
 * (shutdown, a final checkpoint), and {@code /usr/bin/time -v} would need the binary on every
 * machine and a wrapper process between the runner and the JVM. Read after the measurement, the
 * high water mark covers all of it: JVM start, job, shutdown. Called from any thread.
 */
public final class PeakRss {
  /** How a child prints its figure: {@code PEAK-RSS vmHwmKb=812345}. */
  static final String PREFIX = "PEAK-RSS ";

  private static final Pattern VM_HWM = Pattern.compile("(?m)^VmHWM:\\s*(\\d+)\\s*kB\\s*$");
  private static final Pattern LINE = Pattern.compile("^PEAK-RSS vmHwmKb=(\\d+)$");

  private PeakRss() {}

  /**
   * The {@code VmHWM} of a {@code /proc/<pid>/status} text, in kB; empty when the text has no such
   * line (not Linux, a kernel thread, a malformed text).
   */
  public static OptionalLong parseStatusKb(String statusText) {
    Matcher m = VM_HWM.matcher(statusText);
    if (!m.find()) {
      return OptionalLong.empty();
    }
    try {
      return OptionalLong.of(Long.parseLong(m.group(1)));
    } catch (NumberFormatException e) { // more digits than a long holds
      return OptionalLong.empty();
    }
  }

  /** This JVM's peak RSS in kB so far; empty where {@code /proc/self/status} cannot be read. */
  public static OptionalLong ofThisProcessKb() {
    return ofStatusFile(Path.of("/proc/self/status"));
  }

  /**
   * The peak RSS in kB so far of the live process {@code pid} (W8's cluster processes); empty where
   * it cannot be read, for example because the process has exited.
   */
  public static OptionalLong ofProcessKb(long pid) {
    return ofStatusFile(Path.of("/proc", Long.toString(pid), "status"));
  }

  private static OptionalLong ofStatusFile(Path status) {
    try {
      return parseStatusKb(Files.readString(status));
    } catch (IOException | RuntimeException e) { // no /proc here, or the process is gone
      return OptionalLong.empty();
    }
  }

  /** The line a child prints for {@code kb}. */
  static String line(long kb) {
    return PREFIX + "vmHwmKb=" + kb;
  }

  /** The figure of a {@link #line}; empty for any other line. */
  static OptionalLong parseLine(String line) {
    Matcher m = LINE.matcher(line.strip());
    if (!m.matches()) {
      return OptionalLong.empty();
    }
    try {
      return OptionalLong.of(Long.parseLong(m.group(1)));
    } catch (NumberFormatException e) {
      return OptionalLong.empty();
    }
  }

  /** The last {@link #line} among a child's output lines, if it printed one. */
  static OptionalLong lastIn(Iterable<String> lines) {
    OptionalLong last = OptionalLong.empty();
    for (String line : lines) {
      OptionalLong kb = parseLine(line);
      if (kb.isPresent()) {
        last = kb;
      }
    }
    return last;
  }

  /** Kilobytes as MiB for a table: {@code 812 MiB}; {@code n/a} when unknown. */
  static String mib(Optional<Double> kb) {
    return kb.map(k -> String.format(Locale.ROOT, "%.0f MiB", k / 1024)).orElse("n/a");
  }
}
