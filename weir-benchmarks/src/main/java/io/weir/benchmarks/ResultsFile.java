package io.weir.benchmarks;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamWriteFeature;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/**
 * The results file, {@code benchmarks/results.jsonl} at the repository root: one {@link
 * ResultRecord} per line as a JSON object, appended by {@link SideBySide} after each invocation and
 * read by {@link ResultsTable}. Lines are only ever appended, so the file is the history of every
 * figure set measured; the newest per engine, workload, configuration and record count is the
 * current one. Blank lines are allowed; anything else that is not a record is an error naming its
 * line.
 */
public final class ResultsFile {
  /** Where the runner appends by default, relative to the repository root. */
  public static final Path DEFAULT = Path.of("benchmarks", "results.jsonl");

  private static final JsonMapper JSON =
      JsonMapper.builder()
          // 16760000, not 1.676E+7: figures are read by people too.
          .enable(StreamWriteFeature.WRITE_BIGDECIMAL_AS_PLAIN)
          .enable(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS)
          .build();

  private ResultsFile() {}

  /** {@code record} as one line of JSON, without the line break. */
  public static String line(ResultRecord record) {
    try {
      return JSON.writeValueAsString(record);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException("Cannot write a result record as JSON: " + record, e);
    }
  }

  /**
   * Reads one line.
   *
   * @throws IllegalArgumentException if it is not a result record, with what is wrong
   */
  public static ResultRecord parse(String line) {
    try {
      return JSON.readValue(line, ResultRecord.class);
    } catch (JsonProcessingException e) {
      Throwable cause = e.getCause() instanceof IllegalArgumentException bad ? bad : e;
      throw new IllegalArgumentException(cause.getMessage(), e);
    }
  }

  /** Every record of {@code file}, in the order written; none if it does not exist. */
  public static List<ResultRecord> read(Path file) throws IOException {
    if (!Files.exists(file)) {
      return List.of();
    }
    List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
    List<ResultRecord> records = new ArrayList<>();
    for (int i = 0; i < lines.size(); i++) {
      if (lines.get(i).isBlank()) {
        continue;
      }
      try {
        records.add(parse(lines.get(i)));
      } catch (IllegalArgumentException e) {
        throw new IOException(
            file
                + ":"
                + (i + 1)
                + ": not a result record ("
                + e.getMessage()
                + "); fix or remove the line (docs/performance/README.md has the format).",
            e);
      }
    }
    return records;
  }

  /** Appends {@code records} to {@code file}, one line each, creating it and its directory. */
  public static void append(Path file, List<ResultRecord> records) throws IOException {
    StringBuilder text = new StringBuilder();
    if (endsWithoutLineBreak(file)) {
      // A file edited by hand may end without one; a record must not be glued to its last line.
      text.append('\n');
    }
    for (ResultRecord record : records) {
      text.append(line(record)).append('\n');
    }
    Path directory = file.toAbsolutePath().getParent();
    if (directory != null) {
      Files.createDirectories(directory);
    }
    Files.writeString(
        file,
        text,
        StandardCharsets.UTF_8,
        StandardOpenOption.CREATE,
        StandardOpenOption.APPEND,
        StandardOpenOption.WRITE);
  }

  private static boolean endsWithoutLineBreak(Path file) throws IOException {
    if (!Files.isRegularFile(file) || Files.size(file) == 0) {
      return false;
    }
    try (var channel = Files.newByteChannel(file)) {
      ByteBuffer last = ByteBuffer.allocate(1);
      channel.position(channel.size() - 1).read(last);
      return last.get(0) != '\n';
    }
  }
}
