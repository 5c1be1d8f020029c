package io.weir.connector.files;

import java.nio.file.Path;
import java.util.Objects;

/**
 * One file of a {@link FileSource} and how far it was read.
 *
 * @param path the file
 * @param offset the byte offset of the next line to read; 0 for a file not yet read
 */
public record FileSplit(Path path, long offset) {

  public FileSplit {
    Objects.requireNonNull(path, "path");
    if (offset < 0) {
      throw new IllegalArgumentException("Negative offset " + offset + " in the split of " + path);
    }
  }
}
