package io.weir.connector.files;

import static io.weir.connector.files.ReaderDriver.readAll;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.weir.api.source.Boundedness;
import io.weir.api.source.InputStatus;
import io.weir.api.source.SourceReader;
import io.weir.api.source.SourceReaderContext;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FileSourceTest {

  @TempDir Path dir;

  private static final SourceReaderContext SUBTASK_0 = new SourceReaderContext(0, 1, 0);

  @Test
  void readsTheVisibleFilesOfADirectoryInNameOrder() throws Exception {
    write("b.txt", "b1\nb2\n");
    write("a.txt", "a1\na2");
    write(".hidden", "no\n");
    write("_SUCCESS", "no\n");
    Files.createDirectory(dir.resolve("sub"));
    write("sub/c.txt", "no\n");

    FileSource<String> source = FileSource.forLines(dir);
    List<FileSplit> splits = source.createSplits(4);

    assertThat(source.getBoundedness()).isEqualTo(Boundedness.BOUNDED);
    assertThat(splits)
        .containsExactly(
            new FileSplit(dir.resolve("a.txt"), 0), new FileSplit(dir.resolve("b.txt"), 0));
    assertThat(read(source, splits)).containsExactly("a1", "a2", "b1", "b2");
  }

  @Test
  void readsASingleFile() throws Exception {
    write("one.txt", "x\ny\n");
    FileSource<String> source = FileSource.forLines(dir.resolve("one.txt"));

    assertThat(read(source, source.createSplits(1))).containsExactly("x", "y");
  }

  @Test
  void splitsLinesAtLineFeedAndCarriageReturnLineFeed() throws Exception {
    write("mixed.txt", "a\r\n\nb\n\r\nc\rd\n  \nlast\r");
    write("empty.txt", "");
    write("newline-only.txt", "\n");
    write("unterminated.txt", "tail");

    assertThat(readFile("mixed.txt")).containsExactly("a", "", "b", "", "c\rd", "  ", "last");
    assertThat(readFile("empty.txt")).isEmpty();
    assertThat(readFile("newline-only.txt")).containsExactly("");
    assertThat(readFile("unterminated.txt")).containsExactly("tail");
  }

  @Test
  void decodesUtf8AcrossBufferBoundariesAndLinesLongerThanTheBuffer() throws Exception {
    String longLine = "\u00e9\u4e2d\uD83D\uDE00".repeat(10_000);
    write("utf8.txt", longLine + "\nshort\n" + longLine);

    SourceReader<String, FileSplit> reader = new LineReader(2, 7);
    reader.addSplits(List.of(new FileSplit(dir.resolve("utf8.txt"), 0)));

    assertThat(readAll(reader)).containsExactly(longLine, "short", longLine);
  }

  @Test
  void aSnapshotHoldsTheByteOffsetOfTheNextLine() throws Exception {
    write("f.txt", "a\r\n\u00e9\nccc\n");
    SourceReader<String, FileSplit> reader = new LineReader(2, 4);
    reader.addSplits(List.of(new FileSplit(dir.resolve("f.txt"), 0)));
    List<String> lines = new ArrayList<>();

    assertThat(ReaderDriver.poll(reader, lines)).isEqualTo(InputStatus.MORE_AVAILABLE);

    assertThat(lines).containsExactly("a", "\u00e9");
    assertThat(reader.snapshotState(1)).containsExactly(new FileSplit(dir.resolve("f.txt"), 6));
    assertThat(readAll(reader)).containsExactly("ccc");
    assertThat(reader.snapshotState(2)).isEmpty();
  }

  @Test
  void aRestoredReaderContinuesWithTheNextLineAndTheRemainingFiles() throws Exception {
    write("1.txt", "a\nb\nc\n");
    write("2.txt", "d\ne\n");
    FileSource<String> source = FileSource.forLines(dir);
    SourceReader<String, FileSplit> first = new LineReader(2, 1024);
    first.addSplits(source.createSplits(1));
    List<String> before = new ArrayList<>();
    ReaderDriver.poll(first, before);
    List<FileSplit> checkpoint =
        ReaderDriver.roundTrip(first.snapshotState(1), source.getSplitSerializer());
    first.close();

    SourceReader<String, FileSplit> second = source.createReader(SUBTASK_0);
    second.addSplits(checkpoint);

    assertThat(before).containsExactly("a", "b");
    assertThat(checkpoint)
        .containsExactly(
            new FileSplit(dir.resolve("1.txt"), 4), new FileSplit(dir.resolve("2.txt"), 0));
    assertThat(readAll(second)).containsExactly("c", "d", "e");
  }

  @Test
  void readsOnlyTheCommittedFilesOfAFileSink() throws Exception {
    SinkHarness<String> sink = SinkHarness.start(FileSink.exactlyOnce(dir));
    sink.write("committed").snapshot(1);
    sink.notifyComplete(1);
    sink.write("in progress");

    assertThat(read(FileSource.forLines(dir), FileSource.forLines(dir).createSplits(1)))
        .containsExactly("committed");
  }

  @Test
  void aMissingPathIsNamed() {
    Path missing = dir.resolve("missing");

    assertThatThrownBy(() -> FileSource.forLines(missing).createSplits(1))
        .isInstanceOf(NoSuchFileException.class)
        .hasMessageContaining(missing.toString());
  }

  @Test
  void aFileDeletedAfterListingIsNamed() throws Exception {
    write("gone.txt", "x\n");
    FileSource<String> source = FileSource.forLines(dir);
    List<FileSplit> splits = source.createSplits(1);
    Files.delete(dir.resolve("gone.txt"));

    assertThatThrownBy(() -> read(source, splits))
        .isInstanceOf(NoSuchFileException.class)
        .hasMessageContaining("gone.txt")
        .hasMessageContaining("deleted or moved");
  }

  @Test
  void theSplitSerializerIsVersioned() throws Exception {
    var serializer = FileSource.forLines(dir).getSplitSerializer();
    FileSplit split = new FileSplit(dir.resolve("d\u00e9j\u00e0 vu.txt"), 1L << 40);

    assertThat(serializer.getVersion()).isEqualTo(1);
    assertThat(serializer.deserialize(1, serializer.serialize(split))).isEqualTo(split);
    assertThatThrownBy(() -> serializer.deserialize(2, serializer.serialize(split)))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("version 2");
  }

  @Test
  void theSourceTravelsToSubtasksAsACopy() throws Exception {
    write("a.txt", "a\n");
    FileSource<String> copy = InMemoryOperatorState.copyOf(FileSource.forLines(dir));

    assertThat(read(copy, copy.createSplits(1))).containsExactly("a");
  }

  private List<String> readFile(String name) throws Exception {
    FileSource<String> source = FileSource.forLines(dir.resolve(name));
    return read(source, source.createSplits(1));
  }

  private static List<String> read(FileSource<String> source, List<FileSplit> splits)
      throws Exception {
    try (SourceReader<String, FileSplit> reader = source.createReader(SUBTASK_0)) {
      reader.addSplits(splits);
      return readAll(reader);
    }
  }

  private void write(String name, String content) throws IOException {
    Files.write(dir.resolve(name), content.getBytes(StandardCharsets.UTF_8));
  }
}
