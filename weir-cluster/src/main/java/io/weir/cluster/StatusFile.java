package io.weir.cluster;

import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;

/**
 * The file a JobManager or TaskManager process writes once it serves ({@code cluster.status-file}):
 * its ports, process id and, for a TaskManager, its id once registered, as {@code key=value} lines.
 * Scripts and tests that start processes with port 0 read the ports here, never from a log line.
 * Written whole to a sibling and moved into place, so a reader sees the whole file or none.
 */
public final class StatusFile {

  private StatusFile() {}

  /** Writes {@code values} to {@code file} atomically. */
  public static void write(Path file, Map<String, String> values) {
    Properties properties = new Properties();
    properties.putAll(values);
    Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
    try {
      if (file.getParent() != null) {
        Files.createDirectories(file.getParent());
      }
      try (Writer out = Files.newBufferedWriter(tmp, StandardCharsets.UTF_8)) {
        properties.store(out, null);
      }
      Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } catch (IOException e) {
      throw new UncheckedIOException(
          "Cannot write the status file "
              + file
              + " ("
              + ClusterOptions.STATUS_FILE.key()
              + "): "
              + e.getMessage(),
          e);
    }
  }

  /** What {@code file} holds, or an empty map while it does not exist. */
  public static Map<String, String> read(Path file) throws IOException {
    if (!Files.exists(file)) {
      return Map.of();
    }
    Properties properties = new Properties();
    try (Reader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      properties.load(in);
    }
    Map<String, String> values = new TreeMap<>();
    properties.stringPropertyNames().forEach(k -> values.put(k, properties.getProperty(k)));
    return values;
  }
}
