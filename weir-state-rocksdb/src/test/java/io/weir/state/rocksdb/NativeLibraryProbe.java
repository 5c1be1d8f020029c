package io.weir.state.rocksdb;

/**
 * Loads RocksDB's native library in a fresh JVM and prints the outcome, for {@link
 * RocksDBErrorsTest}: a library loaded once stays loaded, so its failure can only be seen in a JVM
 * of its own.
 */
public final class NativeLibraryProbe {
  private NativeLibraryProbe() {}

  public static void main(String[] args) {
    try {
      RocksDBNativeLibrary.ensureLoaded();
      System.out.println("LOADED");
    } catch (RuntimeException e) {
      System.out.println("ERROR " + e.getMessage());
    }
  }
}
