package io.weir.cli;

import java.util.ArrayList;
import java.util.List;

/**
 * A failed job's stack trace as {@code weir run} prints it: the user's frames first (those of
 * classes outside Weir and the JDK), under the exception they belong to; {@code --verbose} prints
 * the whole trace.
 */
final class JobFailure {

  /** Frames of these packages are the engine's or the JDK's, not the user's. */
  private static final List<String> INTERNAL =
      List.of("io.weir.", "java.", "javax.", "jdk.", "sun.", "com.sun.");

  /** How many of the root cause's frames to show when no frame is the user's. */
  private static final int ROOT_FRAMES = 5;

  private JobFailure() {}

  /** One exception of a printed trace: its header line and its frames. */
  private record Section(String header, List<String> frames) {}

  /**
   * The user's part of {@code trace} (as {@link Throwable#printStackTrace()} writes it): each
   * exception of the cause chain that has frames of the user's code, with those frames; without
   * any, the root cause with its first frames.
   */
  static String userFrames(String trace) {
    List<Section> sections = parse(trace);
    StringBuilder out = new StringBuilder();
    for (Section section : sections) {
      List<String> user = section.frames().stream().filter(JobFailure::isUserFrame).toList();
      if (!user.isEmpty()) {
        out.append(section.header()).append('\n');
        user.forEach(f -> out.append('\t').append(f).append('\n'));
      }
    }
    if (out.length() == 0 && !sections.isEmpty()) {
      Section root = sections.get(sections.size() - 1);
      out.append(root.header()).append('\n');
      root.frames().stream()
          .limit(ROOT_FRAMES)
          .forEach(f -> out.append('\t').append(f).append('\n'));
    }
    return out.toString();
  }

  /** Whether {@code frame} ({@code at pkg.Class.method(File.java:1)}) is of the user's code. */
  static boolean isUserFrame(String frame) {
    if (!frame.startsWith("at ")) {
      return false;
    }
    String where = frame.substring(3);
    // A module prefix (java.base/java.lang.Thread.run) names the JDK's classes.
    int slash = where.indexOf('/');
    int paren = where.indexOf('(');
    if (slash >= 0 && (paren < 0 || slash < paren)) {
      where = where.substring(slash + 1);
    }
    String w = where;
    return INTERNAL.stream().noneMatch(w::startsWith);
  }

  private static List<Section> parse(String trace) {
    List<Section> sections = new ArrayList<>();
    String header = null;
    List<String> frames = new ArrayList<>();
    for (String line : trace.split("\\R")) {
      String stripped = line.strip();
      if (stripped.isEmpty()) {
        continue;
      }
      if (stripped.startsWith("at ")) {
        frames.add(stripped);
      } else if (stripped.startsWith("...")) {
        continue; // "... 5 more": frames the enclosing exception showed
      } else if (header == null || stripped.startsWith("Caused by: ")) {
        if (header != null) {
          sections.add(new Section(header, frames));
        }
        header = stripped;
        frames = new ArrayList<>();
      } else if (stripped.startsWith("Suppressed: ")) {
        if (header != null) {
          sections.add(new Section(header, frames));
        }
        header = stripped;
        frames = new ArrayList<>();
      } else if (frames.isEmpty()) {
        header = header + "\n" + stripped; // a message of several lines
      }
    }
    if (header != null) {
      sections.add(new Section(header, frames));
    }
    return sections;
  }
}
