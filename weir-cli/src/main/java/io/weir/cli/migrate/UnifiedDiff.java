package io.weir.cli.migrate;

import java.util.ArrayList;
import java.util.List;

/** The unified diff ({@code diff -u}) of two texts by line, with three lines of context. */
final class UnifiedDiff {

  private static final int CONTEXT = 3;

  private UnifiedDiff() {}

  /** One line of the edit script: ' ' kept, '-' removed, '+' added. */
  private record Edit(char kind, String line, int oldLine, int newLine) {}

  static String of(String path, String before, String after) {
    List<Edit> edits = edits(before.lines().toList(), after.lines().toList());
    StringBuilder out = new StringBuilder();
    out.append("--- a/").append(path).append('\n');
    out.append("+++ b/").append(path).append('\n');
    int i = 0;
    while (i < edits.size()) {
      if (edits.get(i).kind() == ' ') {
        i++;
        continue;
      }
      // A hunk: from CONTEXT lines before this change to CONTEXT lines after the last change
      // that is at most 2 * CONTEXT kept lines away.
      int start = Math.max(0, i - CONTEXT);
      int end = i;
      int kept = 0;
      for (int j = i; j < edits.size(); j++) {
        if (edits.get(j).kind() == ' ') {
          if (++kept > 2 * CONTEXT) {
            break;
          }
        } else {
          kept = 0;
          end = j;
        }
      }
      int stop = Math.min(edits.size(), end + 1 + CONTEXT);
      appendHunk(out, edits.subList(start, stop));
      i = stop;
    }
    return out.toString();
  }

  private static void appendHunk(StringBuilder out, List<Edit> hunk) {
    int oldStart = 0;
    int newStart = 0;
    int oldCount = 0;
    int newCount = 0;
    for (Edit edit : hunk) {
      if (edit.kind() != '+') {
        oldStart = oldStart == 0 ? edit.oldLine() : oldStart;
        oldCount++;
      }
      if (edit.kind() != '-') {
        newStart = newStart == 0 ? edit.newLine() : newStart;
        newCount++;
      }
    }
    out.append("@@ -").append(oldStart).append(',').append(oldCount);
    out.append(" +").append(newStart).append(',').append(newCount).append(" @@\n");
    for (Edit edit : hunk) {
      out.append(edit.kind()).append(edit.line()).append('\n');
    }
  }

  /** The shortest edit script by longest common subsequence; source files are small. */
  private static List<Edit> edits(List<String> a, List<String> b) {
    int n = a.size();
    int m = b.size();
    int[][] lcs = new int[n + 1][m + 1];
    for (int i = n - 1; i >= 0; i--) {
      for (int j = m - 1; j >= 0; j--) {
        lcs[i][j] =
            a.get(i).equals(b.get(j))
                ? lcs[i + 1][j + 1] + 1
                : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
      }
    }
    List<Edit> edits = new ArrayList<>();
    int i = 0;
    int j = 0;
    while (i < n || j < m) {
      if (i < n && j < m && a.get(i).equals(b.get(j))) {
        edits.add(new Edit(' ', a.get(i), ++i, ++j));
      } else if (i < n && (j == m || lcs[i + 1][j] >= lcs[i][j + 1])) {
        edits.add(new Edit('-', a.get(i), ++i, j + 1));
      } else {
        edits.add(new Edit('+', b.get(j), i + 1, ++j));
      }
    }
    return edits;
  }
}
