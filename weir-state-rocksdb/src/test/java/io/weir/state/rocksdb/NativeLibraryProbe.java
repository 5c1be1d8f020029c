package io.weir.state.rocksdb;

import io.weir.api.config.Configuration;

/**
 * Loads RocksDB's native library in a fresh JVM and prints the outcome, for {@link
 * RocksDBErrorsTest} and {@link NativeLibraryExtractionTest}: a library loaded once stays loaded,
 * so a load can only be seen in a JVM of its own. Reads {@code
 * state.backend.rocksdb.native-library.dir} from the system properties.
 */
public final class NativeLibraryProbe {
  private NativeLibraryProbe() {}

  public static void main(String[] args) {
    try {
      RocksDBNativeLibrary.ensureLoaded(Configuration.fromSystemProperties());
      System.out.println(
          "LOADED " + RocksDBNativeLibrary.directory(Configuration.fromSystemProperties()));
    } catch (RuntimeException e) {
      System.out.println("ERROR " + e.getMessage());
    }
  }
}
