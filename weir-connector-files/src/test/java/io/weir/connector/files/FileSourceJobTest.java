package io.weir.connector.files;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.weir.api.DataStream;
import io.weir.api.StreamEnvironment;
import io.weir.api.eventtime.WatermarkStrategy;
import io.weir.api.functions.SinkFunction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The file source in a job on the embedded runtime. */
class FileSourceJobTest {

  /** Static: every subtask works on its own copy of the sink function. */
  static final Queue<String> RECEIVED = new ConcurrentLinkedQueue<>();

  @TempDir Path dir;

  @Test
  void readsEveryLineOfEveryFileOnceInParallel() throws Exception {
    List<String> expected = new ArrayList<>();
    for (int file = 0; file < 5; file++) {
      StringBuilder content = new StringBuilder();
      for (int line = 0; line < 2_000; line++) {
        String text = "file " + file + " line " + line;
        content.append(text).append(line % 2 == 0 ? "\n" : "\r\n");
        expected.add(text);
      }
      Files.write(
          dir.resolve("input-" + file + ".txt"),
          content.toString().getBytes(StandardCharsets.UTF_8));
    }
    RECEIVED.clear();

    StreamEnvironment env = StreamEnvironment.create();
    env.setParallelism(2);
    env.fromSource(FileSource.forLines(dir), "files")
        .addSink((SinkFunction<String>) (line, context) -> RECEIVED.add(line));
    env.execute("file-source");

    assertThat(RECEIVED).containsExactlyInAnyOrderElementsOf(expected);
  }

  @Test
  void flinksForRecordStreamFormatWithTextLineInputFormatReadsTheLines() throws Exception {
    Files.write(dir.resolve("a.txt"), "alpha\nbeta\r\n".getBytes(StandardCharsets.UTF_8));
    Files.write(dir.resolve("b.txt"), "gamma\ndelta".getBytes(StandardCharsets.UTF_8));
    Path single = Files.createDirectories(dir.resolve("more")).resolve("c.txt");
    Files.write(single, "epsilon\n".getBytes(StandardCharsets.UTF_8));

    StreamEnvironment env = StreamEnvironment.create();
    env.setParallelism(2);
    FileSource<String> source =
        FileSource.forRecordStreamFormat(new TextLineInputFormat(), dir, single).build();
    DataStream<String> lines =
        env.fromSource(source, WatermarkStrategy.noWatermarks(), "file-source");
    List<String> read = lines.map(String::toUpperCase).executeAndCollect("text lines", 100);

    assertThat(read).containsExactlyInAnyOrder("ALPHA", "BETA", "GAMMA", "DELTA", "EPSILON");
  }

  @Test
  void textLineInputFormatRefusesACharsetOtherThanUtf8() {
    assertThatThrownBy(() -> new TextLineInputFormat("ISO-8859-1"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "TextLineInputFormat reads UTF-8 text only, not ISO-8859-1; convert the files to UTF-8"
                + " or use new TextLineInputFormat()");
    assertThatThrownBy(() -> FileSource.forRecordStreamFormat(new TextLineInputFormat()))
        .hasMessage("FileSource.forRecordStreamFormat needs at least one file or directory");
  }
}
