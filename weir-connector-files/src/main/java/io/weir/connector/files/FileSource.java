package io.weir.connector.files;

import io.weir.api.source.Boundedness;
import io.weir.api.source.SimpleVersionedSerializer;
import io.weir.api.source.Source;
import io.weir.api.source.SourceReader;
import io.weir.api.source.SourceReaderContext;
import io.weir.api.typeutils.ResultTypeQueryable;
import io.weir.api.typeutils.TypeInformation;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.stream.Stream;

/**
 * A bounded source of the records of files, one split per file; Weir reads the lines of text files
 * ({@link TextLineInputFormat}). As in Flink:
 *
 * <pre>{@code
 * FileSource<String> source =
 *     FileSource.forRecordStreamFormat(new TextLineInputFormat(), Path.of("/data/in")).build();
 * DataStream<String> lines = env.fromSource(source, WatermarkStrategy.noWatermarks(), "input");
 * }</pre>
 *
 * <p>or shorter, {@code FileSource.forLines(Path.of("/data/in"))}. Paths are {@code
 * java.nio.file.Path}s (Flink's are its own {@code Path} class); directories are not watched for
 * new files (Flink's {@code monitorContinuously} has no counterpart).
 *
 * <p>Lines are UTF-8 and end with {@code '\n'} or {@code "\r\n"} (the terminator is not part of the
 * line); a last line without a terminator is a line too, and a {@code '\r'} right before the end of
 * the file is dropped like one before {@code '\n'}. A checkpoint records for each file the byte
 * offset of the next line, so a restore continues with exactly the next line. Files are read as
 * they are when their split is opened; lines appended later are read only if the reader has not
 * reached the end yet.
 */
public final class FileSource<T> implements Source<T, FileSplit>, ResultTypeQueryable<T> {
  private static final long serialVersionUID = 1L;

  private final StreamFormat<T> format;

  /** Strings, since {@link Path} is not serializable. */
  private final List<String> paths;

  private FileSource(StreamFormat<T> format, List<String> paths) {
    this.format = format;
    this.paths = List.copyOf(paths);
  }

  /**
   * The lines of {@code fileOrDirectory}: of the file itself, or of every regular file directly in
   * the directory (not in subdirectories), in name order, skipping hidden files whose name starts
   * with {@code '.'} or {@code '_'} (as Flink does; this skips a {@link FileSink}'s in-progress
   * files).
   */
  public static FileSource<String> forLines(Path fileOrDirectory) {
    return forRecordStreamFormat(new TextLineInputFormat(), fileOrDirectory).build();
  }

  /**
   * The records {@code format} reads from each path: a file, or every visible regular file directly
   * in a directory, as {@link #forLines} lists them; as Flink's {@code forRecordStreamFormat}.
   */
  public static <T> FileSourceBuilder<T> forRecordStreamFormat(
      StreamFormat<T> format, Path... paths) {
    Objects.requireNonNull(format, "format");
    if (paths.length == 0) {
      throw new IllegalArgumentException(
          "FileSource.forRecordStreamFormat needs at least one file or directory");
    }
    List<String> names = new ArrayList<>();
    for (Path path : paths) {
      names.add(Objects.requireNonNull(path, "path").toAbsolutePath().normalize().toString());
    }
    return new FileSourceBuilder<>(format, names);
  }

  /** Builds a {@link FileSource}, as Flink's {@code FileSourceBuilder}. */
  public static final class FileSourceBuilder<T> {
    private final StreamFormat<T> format;
    private final List<String> paths;

    private FileSourceBuilder(StreamFormat<T> format, List<String> paths) {
      this.format = format;
      this.paths = paths;
    }

    public FileSource<T> build() {
      return new FileSource<>(format, paths);
    }
  }

  @Override
  public TypeInformation<T> getProducedType() {
    return format.getProducedType();
  }

  @Override
  public Boundedness getBoundedness() {
    return Boundedness.BOUNDED;
  }

  /** One split at offset 0 per file, listed now. */
  @Override
  public List<FileSplit> createSplits(int parallelism) throws IOException {
    List<FileSplit> splits = new ArrayList<>();
    for (String path : paths) {
      splits.addAll(splitsOf(path));
    }
    return splits;
  }

  private static List<FileSplit> splitsOf(String path) throws IOException {
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
        path, null, "FileSource: no such file or directory (or not a regular file)");
  }

  @Override
  public SourceReader<T, FileSplit> createReader(SourceReaderContext context) {
    return format.createReader();
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
    return "FileSource(" + format + ", " + String.join(", ", paths) + ")";
  }
}
