package io.weir.connector.files;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.weir.api.sink.Sink;
import io.weir.api.sink.TwoPhaseCommitSink;
import io.weir.api.sink.WriterInitContext;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FileSinkTest {

  @TempDir Path dir;

  private Sink<String> sink() {
    return FileSink.exactlyOnce(dir);
  }

  @Test
  void onlyLinesOfCompletedCheckpointsAreCommitted() throws Exception {
    SinkHarness<String> subtask = SinkHarness.start(sink());
    subtask.write("a", "b");
    subtask.snapshot(1);
    subtask.write("c");

    assertThat(committedLines()).isEmpty();
    subtask.notifyComplete(1);

    assertThat(committedLines()).containsExactly("a", "b");
    assertThat(inProgressFiles()).hasSize(1); // "c", waiting for the next checkpoint
    assertThat(committedFiles()).singleElement().asString().matches("part-0-0-[0-9a-f]{16}-0");
  }

  @Test
  void restoreAfterACrashBetweenSnapshotAndNotificationCommitsExactlyOnce() throws Exception {
    SinkHarness<String> first = SinkHarness.start(sink());
    first.write("a").snapshot(1);
    first.notifyComplete(1);
    first.write("b");
    InMemoryOperatorState.Snapshot checkpoint2 = first.snapshot(2);
    first.write("c"); // after checkpoint 2: the restore replays it
    // Crash: checkpoint 2 completed, but the subtask was never told.
    assertThat(committedLines()).containsExactly("a");
    assertThat(inProgressFiles()).hasSize(2);

    SinkHarness<String> second =
        SinkHarness.start(sink(), new WriterInitContext(0, 1, 1), checkpoint2);

    assertThat(committedLines()).containsExactlyInAnyOrder("a", "b");
    assertThat(inProgressFiles()).isEmpty(); // "c" aborted
    second.write("c", "d").finish(3);
    assertThat(committedLines()).containsExactlyInAnyOrder("a", "b", "c", "d");
    assertThat(inProgressFiles()).isEmpty();
  }

  @Test
  void restoringTwiceFromTheSameCheckpointIsHarmless() throws Exception {
    SinkHarness<String> first = SinkHarness.start(sink());
    first.write("a", "b");
    InMemoryOperatorState.Snapshot checkpoint1 = first.snapshot(1);
    first.write("lost");

    SinkHarness.start(sink(), new WriterInitContext(0, 1, 1), checkpoint1).write("x");
    SinkHarness.start(sink(), new WriterInitContext(0, 1, 2), checkpoint1);
    // The first run also hears of checkpoint 1 late: commit is idempotent.
    first.notifyComplete(1);

    assertThat(committedLines()).containsExactly("a", "b");
    assertThat(committedFiles()).hasSize(1);
  }

  @Test
  void closingAbortsTheOpenTransactionAndLeavesNoFiles() throws Exception {
    SinkHarness<String> subtask = SinkHarness.start(sink());
    subtask.write("a", "b");
    assertThat(inProgressFiles()).hasSize(1);

    subtask.close();

    assertThat(allFiles()).isEmpty();
  }

  @Test
  void anAbortedCheckpointIsCommittedWithTheNextCompletedOne() throws Exception {
    SinkHarness<String> subtask = SinkHarness.start(sink());
    subtask.write("a").snapshot(1);
    subtask.notifyAborted(1);
    subtask.write("b").snapshot(2);
    subtask.notifyComplete(2);

    assertThat(committedLines()).containsExactlyInAnyOrder("a", "b");
    assertThat(committedFiles()).hasSize(2);
  }

  @Test
  void emptyTransactionsCreateNoFiles() throws Exception {
    SinkHarness<String> subtask = SinkHarness.start(sink());
    subtask.snapshot(1);
    subtask.notifyComplete(1);
    subtask.write("a").snapshot(2);
    subtask.snapshot(3);
    subtask.notifyComplete(3);
    subtask.finish(4);

    assertThat(allFiles()).hasSize(1);
    assertThat(committedLines()).containsExactly("a");
  }

  @Test
  void endOfInputCommitsEverythingWithTheFinalCheckpoint() throws Exception {
    List<String> lines = new ArrayList<>();
    for (int i = 0; i < 10_000; i++) {
      lines.add("line " + i + " \u00e9\u4e2d\uD83D\uDE00");
    }
    SinkHarness<String> subtask = SinkHarness.start(sink());
    subtask.write(lines.subList(0, 5_000)).snapshot(1);
    subtask.write(lines.subList(5_000, 10_000)).finish(2);

    assertThat(committedLines()).containsExactlyInAnyOrderElementsOf(lines);
    assertThat(inProgressFiles()).isEmpty();
    for (Path file : committedFiles()) {
      assertThat(Files.readString(dir.resolve(file))).endsWith("\n");
    }
  }

  @Test
  void subtasksWriteIntoDistinctFiles() throws Exception {
    SinkHarness<String> zero = SinkHarness.start(sink(), new WriterInitContext(0, 2, 0), null);
    SinkHarness<String> one = SinkHarness.start(sink(), new WriterInitContext(1, 2, 0), null);
    zero.write("a").finish(1);
    one.write("b").finish(1);

    assertThat(committedFiles())
        .extracting(Path::toString)
        .anyMatch(name -> name.startsWith("part-0-0-"))
        .anyMatch(name -> name.startsWith("part-1-0-"));
    assertThat(committedLines()).containsExactlyInAnyOrder("a", "b");
  }

  @Test
  void aRerunIntoTheSameDirectoryKeepsTheEarlierFiles() throws Exception {
    SinkHarness.start(sink()).write("first run").finish(1);
    SinkHarness.start(sink()).write("second run").finish(1);

    assertThat(committedLines()).containsExactlyInAnyOrder("first run", "second run");
  }

  @Test
  void committingAFileThatVanishedNamesBothPaths() throws Exception {
    SinkHarness<String> first = SinkHarness.start(sink());
    first.write("a");
    InMemoryOperatorState.Snapshot checkpoint1 = first.snapshot(1);
    for (Path file : inProgressFiles()) {
      Files.delete(dir.resolve(file));
    }

    assertThatThrownBy(() -> SinkHarness.start(sink(), new WriterInitContext(0, 1, 1), checkpoint1))
        .isInstanceOf(IOException.class)
        .hasMessageContaining(dir.toString())
        .hasMessageContaining(".inprogress")
        .hasMessageMatching("(?s).*neither the in-progress file .* nor the committed file .*");
  }

  @Test
  void theSinkIsATwoPhaseCommitSinkAndCreatesItsDirectory() throws Exception {
    Path nested = dir.resolve("a").resolve("b");
    TwoPhaseCommitSink<String, ?> sink = FileSink.exactlyOnce(nested);
    SinkHarness.start(sink).write("x").finish(1);

    assertThat(Files.readAllLines(nested.resolve(onlyFile(nested)))).containsExactly("x");
  }

  private static Path onlyFile(Path directory) throws IOException {
    try (Stream<Path> files = Files.list(directory)) {
      return files
          .map(Path::getFileName)
          .reduce(
              (x, y) -> {
                throw new AssertionError("more than one file in " + directory);
              })
          .orElseThrow();
    }
  }

  private List<String> committedLines() throws IOException {
    List<String> lines = new ArrayList<>();
    for (Path file : committedFiles()) {
      lines.addAll(Files.readAllLines(dir.resolve(file), StandardCharsets.UTF_8));
    }
    return lines;
  }

  private List<Path> committedFiles() throws IOException {
    return allFiles().stream().filter(f -> !f.toString().startsWith(".")).toList();
  }

  private List<Path> inProgressFiles() throws IOException {
    return allFiles().stream()
        .filter(f -> f.toString().startsWith(".part-") && f.toString().endsWith(".inprogress"))
        .toList();
  }

  private List<Path> allFiles() throws IOException {
    try (Stream<Path> files = Files.list(dir)) {
      return files.map(Path::getFileName).sorted().toList();
    }
  }
}
