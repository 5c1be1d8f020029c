package io.weir.state.rocksdb;

import io.weir.api.config.Configuration;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.JarURLConnection;
import java.net.URL;
import java.net.URLConnection;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import java.util.jar.JarEntry;
import java.util.zip.CRC32;
import java.util.zip.CheckedInputStream;
import org.rocksdb.RocksDB;
import org.rocksdb.util.Environment;

/**
 * Loads RocksDB's native library once per JVM from a stable directory, one copy per rocksdbjni
 * library ({@code state.backend.rocksdb.native-library.dir}, by default {@code
 * <java.io.tmpdir>/weir-rocksdb-native}, then a directory named after the library). RocksDB's own
 * loader extracts a fresh temporary copy (about 15 MB) per process and deletes it only on a clean
 * exit, so every killed TaskManager would leave one behind. Here the first process extracts the
 * library to a temporary name and renames it into place atomically; every later process, killed or
 * not, loads that same file. A failure is turned into an error that names the library, the
 * directory and why.
 */
final class RocksDBNativeLibrary {

  /** A temporary extraction this old was left by a killed process and is deleted. */
  private static final Duration STALE = Duration.ofMinutes(10);

  private static boolean loaded;

  private RocksDBNativeLibrary() {}

  /** The directory holding this rocksdbjni library for {@code configuration}. */
  static Path directory(Configuration configuration) {
    String configured = configuration.get(RocksDBOptions.NATIVE_LIBRARY_DIRECTORY);
    Path base =
        configured == null || configured.isBlank()
            ? Path.of(System.getProperty("java.io.tmpdir"), "weir-rocksdb-native")
            : Path.of(configured.trim());
    return base.resolve(libraryId());
  }

  static synchronized void ensureLoaded(Configuration configuration) {
    if (loaded) {
      return;
    }
    Path dir = directory(configuration);
    try {
      extractOnce(dir);
      RocksDB.loadLibrary(List.of(dir.toString()));
    } catch (Throwable t) {
      throw new IllegalStateException(
          "Could not load RocksDB's native library "
              + Environment.getJniLibraryFileName("rocksdb")
              + " (from org.rocksdb:rocksdbjni) from "
              + dir
              + " ("
              + RocksDBOptions.NATIVE_LIBRARY_DIRECTORY.key()
              + ", by default below java.io.tmpdir "
              + System.getProperty("java.io.tmpdir")
              + ") on "
              + System.getProperty("os.name")
              + "/"
              + System.getProperty("os.arch")
              + ": "
              + t
              + ". The directory must be creatable, writable and allow executing files; the"
              + " platform must be one rocksdbjni ships a library for.",
          t);
    }
    loaded = true;
  }

  /**
   * Puts the jar's library into {@code dir} unless a previous process did. {@code
   * RocksDB.loadLibrary(paths)} looks there for the file name {@code
   * Environment.getJniLibraryFileName("rocksdbjni")}, so that is the name it gets.
   */
  private static void extractOnce(Path dir) throws IOException {
    Path library = dir.resolve(Environment.getJniLibraryFileName("rocksdbjni"));
    if (Files.isRegularFile(library)) {
      return;
    }
    Files.createDirectories(dir);
    deleteStaleExtractions(dir, library.getFileName().toString());
    String resource = Environment.getJniLibraryFileName("rocksdb");
    Path temporary = dir.resolve(library.getFileName() + ".tmp-" + UUID.randomUUID());
    try (InputStream in = RocksDB.class.getClassLoader().getResourceAsStream(resource)) {
      if (in == null) {
        throw new IOException("the rocksdbjni jar has no " + resource + " for this platform");
      }
      Files.copy(in, temporary);
      try {
        Files.move(temporary, library, StandardCopyOption.ATOMIC_MOVE);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(temporary, library, StandardCopyOption.REPLACE_EXISTING);
      }
    } finally {
      Files.deleteIfExists(temporary);
    }
  }

  private static void deleteStaleExtractions(Path dir, String libraryName) {
    Instant before = Instant.now().minus(STALE);
    try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir, libraryName + ".tmp-*")) {
      for (Path entry : entries) {
        if (Files.getLastModifiedTime(entry).toInstant().isBefore(before)) {
          Files.deleteIfExists(entry);
        }
      }
    } catch (IOException e) {
      // Only tidying up: a leftover that cannot be deleted does no harm.
    }
  }

  /**
   * Names the library of the rocksdbjni jar on the class path: the CRC-32 and size of its native
   * file as the jar records them (the jar has no version in its manifest), so that two versions
   * never share a directory and the same version always does.
   */
  private static String libraryId() {
    String resource = Environment.getJniLibraryFileName("rocksdb");
    URL url = RocksDB.class.getClassLoader().getResource(resource);
    if (url == null) {
      return "missing";
    }
    try {
      URLConnection connection = url.openConnection();
      if (connection instanceof JarURLConnection jar && jar.getJarEntry().getCrc() != -1) {
        JarEntry entry = jar.getJarEntry();
        return Long.toHexString(entry.getCrc()) + "-" + entry.getSize();
      }
      CRC32 crc = new CRC32();
      long size;
      try (InputStream in = new CheckedInputStream(connection.getInputStream(), crc)) {
        size = in.transferTo(OutputStream.nullOutputStream());
      }
      return Long.toHexString(crc.getValue()) + "-" + size;
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read " + url, e);
    }
  }
}
