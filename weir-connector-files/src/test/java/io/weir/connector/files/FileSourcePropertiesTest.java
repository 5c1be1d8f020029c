package io.weir.connector.files;

import static org.assertj.core.api.Assertions.assertThat;

import io.weir.api.source.SimpleVersionedSerializer;
import io.weir.api.source.SourceReader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.From;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/** Restoring a file source reader anywhere, any number of times, reads every line exactly once. */
class FileSourcePropertiesTest {

  /** One line of a file as written: its text and how it ends. */
  record Line(String text, String terminator) {}

  /** A file's lines; the last one may lack a terminator. */
  record Content(List<Line> lines, boolean lastTerminated) {

    byte[] bytes() {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      for (int i = 0; i < lines.size(); i++) {
        Line line = lines.get(i);
        boolean last = i == lines.size() - 1;
        String text = line.text() + (last && !lastTerminated ? "" : line.terminator());
        out.writeBytes(text.getBytes(StandardCharsets.UTF_8));
      }
      return out.toByteArray();
    }

    List<String> expectedLines() {
      List<String> expected = new ArrayList<>();
      lines.forEach(line -> expected.add(line.text()));
      // An unterminated empty last line is no line at all: the file just ends.
      if (!lastTerminated && !expected.isEmpty() && expected.get(expected.size() - 1).isEmpty()) {
        expected.remove(expected.size() - 1);
      }
      return expected;
    }
  }

  @Property(tries = 300)
  void everyLineExactlyOnceAcrossRestores(
      @ForAll @Size(min = 1, max = 4) List<@From("contents") Content> files,
      @ForAll @Size(max = 6) List<@IntRange(min = 0, max = 12) Integer> pollsBetweenRestores,
      @ForAll @IntRange(min = 1, max = 5) int batch,
      @ForAll @IntRange(min = 1, max = 24) int bufferBytes)
      throws Exception {
    Path dir = Files.createTempDirectory("file-source");
    try {
      List<String> expected = new ArrayList<>();
      for (int i = 0; i < files.size(); i++) {
        Files.write(dir.resolve(String.format("file-%02d.txt", i)), files.get(i).bytes());
        expected.addAll(files.get(i).expectedLines());
      }
      FileSource<String> source = FileSource.forLines(dir);
      SimpleVersionedSerializer<FileSplit> serializer = source.getSplitSerializer();
      List<FileSplit> splits = source.createSplits(1);
      List<String> read = new ArrayList<>();

      boolean ended = false;
      for (int polls : pollsBetweenRestores) {
        SourceReader<String, FileSplit> reader = new LineReader(batch, bufferBytes);
        reader.addSplits(splits);
        ended = ReaderDriver.read(reader, polls, read);
        // The checkpoint; then the reader is dropped, as in a failure.
        splits = ReaderDriver.roundTrip(reader.snapshotState(polls), serializer);
        reader.close();
        if (ended) {
          assertThat(splits).isEmpty();
          break;
        }
      }
      if (!ended) {
        SourceReader<String, FileSplit> reader = new LineReader(batch, bufferBytes);
        reader.addSplits(splits);
        read.addAll(ReaderDriver.readAll(reader));
        reader.close();
      }

      assertThat(read).containsExactlyElementsOf(expected);
    } finally {
      deleteRecursively(dir);
    }
  }

  @Provide
  Arbitrary<Content> contents() {
    Arbitrary<String> token =
        Arbitraries.of("a", "bc", " ", "\t", "\u00e9", "\u4e2d", "\uD83D\uDE00", "0123456789");
    Arbitrary<String> text =
        Arbitraries.oneOf(
            token.list().ofMaxSize(6).map(tokens -> String.join("", tokens)),
            token.list().ofMinSize(20).ofMaxSize(80).map(tokens -> String.join("", tokens)));
    Arbitrary<Line> line = Combinators.combine(text, Arbitraries.of("\n", "\r\n")).as(Line::new);
    return Combinators.combine(line.list().ofMaxSize(25), Arbitraries.of(true, false))
        .as(Content::new);
  }

  private static void deleteRecursively(Path dir) throws IOException {
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(path);
      }
    }
  }
}
