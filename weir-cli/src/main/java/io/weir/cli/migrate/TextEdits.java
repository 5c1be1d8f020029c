package io.weir.cli.migrate;

import com.github.javaparser.Position;
import com.github.javaparser.Range;
import com.github.javaparser.ast.Node;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Replacements of ranges of a source text, applied at once. The migration edits the original text
 * where the syntax tree says a name is, so every character it does not replace stays as it was:
 * comments, blank lines and formatting included. (JavaParser's LexicalPreservingPrinter, tried
 * first, does not print a renamed type in a variable declaration.) Not thread-safe.
 */
final class TextEdits {

  private record Edit(int start, int end, String text) {}

  private final String source;
  private final int[] lineStarts;
  private final List<Edit> edits = new ArrayList<>();

  TextEdits(String source) {
    this.source = source;
    List<Integer> starts = new ArrayList<>();
    starts.add(0);
    for (int i = 0; i < source.length(); i++) {
      char c = source.charAt(i);
      if (c == '\n' || (c == '\r' && (i + 1 == source.length() || source.charAt(i + 1) != '\n'))) {
        starts.add(i + 1);
      }
    }
    this.lineStarts = starts.stream().mapToInt(Integer::intValue).toArray();
  }

  /** Replaces what {@code node} spans with {@code text}. */
  void replace(Node node, String text) {
    Range range = node.getRange().orElseThrow(() -> new IllegalStateException("no range: " + node));
    add(offset(range.begin), offset(range.end) + 1, text);
  }

  /** Replaces from the start of {@code from} to the end of {@code to}, both included. */
  void replace(Node from, Node to, String text) {
    add(offset(from.getBegin().orElseThrow()), offset(to.getEnd().orElseThrow()) + 1, text);
  }

  /** Removes what follows {@code kept} up to the end of {@code node}. */
  void removeAfter(Node kept, Node node) {
    add(offset(kept.getEnd().orElseThrow()) + 1, offset(node.getEnd().orElseThrow()) + 1, "");
  }

  /** Inserts {@code text} right after {@code node}. */
  void insertAfter(Node node, String text) {
    int at = offset(node.getEnd().orElseThrow()) + 1;
    add(at, at, text);
  }

  /** Removes {@code node}, with its line when nothing else is on it. */
  void removeWithLine(Node node) {
    int start = offset(node.getBegin().orElseThrow());
    int end = offset(node.getEnd().orElseThrow()) + 1;
    int lineStart = start;
    while (lineStart > 0 && isBlank(source.charAt(lineStart - 1))) {
      lineStart--;
    }
    int lineEnd = end;
    while (lineEnd < source.length() && isBlank(source.charAt(lineEnd))) {
      lineEnd++;
    }
    boolean aloneOnLine =
        (lineStart == 0 || isBreak(source.charAt(lineStart - 1)))
            && (lineEnd == source.length() || isBreak(source.charAt(lineEnd)));
    if (aloneOnLine) {
      if (lineEnd < source.length() && source.charAt(lineEnd) == '\r') {
        lineEnd++;
      }
      if (lineEnd < source.length() && source.charAt(lineEnd) == '\n') {
        lineEnd++;
      }
      add(lineStart, lineEnd, "");
    } else {
      add(start, end, "");
    }
  }

  private static boolean isBlank(char c) {
    return c == ' ' || c == '\t';
  }

  private static boolean isBreak(char c) {
    return c == '\n' || c == '\r';
  }

  private void add(int start, int end, String text) {
    edits.add(new Edit(start, end, text));
  }

  private int offset(Position position) {
    return lineStarts[position.line - 1] + position.column - 1;
  }

  /** The source with every edit applied; an edit inside an earlier, wider one is dropped. */
  String apply() {
    List<Edit> sorted = new ArrayList<>(edits);
    sorted.sort(
        Comparator.comparingInt(Edit::start)
            .thenComparing(Comparator.comparingInt(Edit::end).reversed()));
    StringBuilder out = new StringBuilder(source.length());
    int at = 0;
    for (Edit edit : sorted) {
      if (edit.start() < at) {
        continue;
      }
      out.append(source, at, edit.start()).append(edit.text());
      at = edit.end();
    }
    return out.append(source.substring(at)).toString();
  }
}
