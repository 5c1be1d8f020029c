package io.weir.connector.files;

import static org.assertj.core.api.Assertions.assertThat;

import io.weir.api.StreamEnvironment;
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
}
