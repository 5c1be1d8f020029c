package io.weir.benchmarks;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** A fresh temporary directory, for checkpoint storage, deleted with its contents on close. */
public final class TempDir implements AutoCloseable {
  private static final int DELETE_ATTEMPTS = 20;
  private static final long DELETE_RETRY_MILLIS = 100;

  private final Path path;

  private TempDir(Path path) {
    this.path = path;
  }

  public static TempDir create(String prefix) throws IOException {
    return new TempDir(Files.createTempDirectory(prefix));
  }

  public Path path() {
    return path;
  }

  /** The directory as a {@code file://} URI, the form checkpoint-storage options take. */
  public String uri() {
    return path.toUri().toString();
  }

  /**
   * Deletes the directory. An engine may still write into it for a moment after its job ended
   * (Weir: an upload of a checkpoint that was in flight at the end), so a failed attempt is
   * repeated a few times before it counts.
   */
  @Override
  public void close() {
    for (int attempt = 1; ; attempt++) {
      try {
        deleteTree();
        return;
      } catch (UncheckedIOException e) {
        if (attempt == DELETE_ATTEMPTS) {
          throw e;
        }
      }
      try {
        Thread.sleep(DELETE_RETRY_MILLIS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new UncheckedIOException(
            new IOException("Interrupted while deleting " + path + "; remove it by hand.", e));
      }
    }
  }

  private void deleteTree() {
    if (!Files.exists(path)) {
      return;
    }
    try (Stream<Path> files = Files.walk(path)) {
      files.sorted(Comparator.reverseOrder()).forEach(TempDir::delete);
    } catch (IOException e) {
      throw new UncheckedIOException("Could not delete temporary directory " + path, e);
    }
  }

  private static void delete(Path file) {
    try {
      Files.deleteIfExists(file);
    } catch (IOException e) {
      throw new UncheckedIOException("Could not delete " + file + "; remove it by hand.", e);
    }
  }
}
