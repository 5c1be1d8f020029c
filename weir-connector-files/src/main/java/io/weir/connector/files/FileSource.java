package io.weir.connector.files;

import io.weir.api.source.Boundedness;
import io.weir.api.source.SimpleVersionedSerializer;
import io.weir.api.source.Source;
import io.weir.api.source.SourceReader;
import io.weir.api.source.SourceReaderContext;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.stream.Stream;

/**
 * A bounded source of the lines of text files, one split per file.
 *
 * <pre>{@code
 * DataStream<String> lines = env.fromSource(FileSource.forLines(Path.of("/data/in")), "input");
 * }</pre>
 *
 * <p>Lines are UTF-8 and end with {@code '\n'} or {@code "\r\n"} (the terminator is not part of the
 * line); a last line without a terminator is a line too, and a {@code '\r'} right before the end of
 * the file is dropped like one before {@code '\n'}. A checkpoint records for each file the byte
 * offset of the next line, so a restore continues with exactly the next line. Files are read as
 * they are when their split is opened; lines appended later are read only if the reader has not
 * reached the end yet.
 */
public final class FileSource implements Source<String, FileSplit> {
  private static final long serialVersionUID = 1L;

  /** A string, since {@link Path} is not serializable. */
  private final String path;

  private FileSource(String path) {
    this.path = path;
  }

  /**
   * The lines of {@code fileOrDirectory}: of the file itself, or of every regular file directly in
   * the directory (not in subdirectories), in name order, skipping hidden files whose name starts
   * with {@code '.'} or {@code '_'} (as Flink does; this skips a {@link FileSink}'s in-progress
   * files).
   */
  public static FileSource forLines(Path fileOrDirectory) {
    Objects.requireNonNull(fileOrDirectory, "fileOrDirectory");
    return new FileSource(fileOrDirectory.toAbsolutePath().normalize().toString());
  }

  @Override
  public Boundedness getBoundedness() {
    return Boundedness.BOUNDED;
  }

  /** One split at offset 0 per file, listed now. */
  @Override
  public List<FileSplit> createSplits(int parallelism) throws IOException {
    Path root = Path.of(path);
    if (Files.isDirectory(root)) {
      try (Stream<Path> files = Files.list(root)) {
        return files
            .filter(file -> Files.isRegularFile(file) && isVisible(file))
            .sorted()
            .map(file -> new FileSplit(file, 0))
            .toList();
      }
    }
    if (Files.isRegularFile(root)) {
      return List.of(new FileSplit(root, 0));
    }
    throw new NoSuchFileException(
        path, null, "FileSource.forLines: no such file or directory (or not a regular file)");
  }

  @Override
  public SourceReader<String, FileSplit> createReader(SourceReaderContext context) {
    return new LineReader();
  }

  @Override
  public SimpleVersionedSerializer<FileSplit> getSplitSerializer() {
    return new FileSplitSerializer();
  }

  private static boolean isVisible(Path file) {
    String name = file.getFileName().toString();
    return !name.startsWith(".") && !name.startsWith("_");
  }

  @Override
  public String toString() {
    return "FileSource.forLines(" + path + ")";
  }
}
