package io.weir.state.rocksdb;

import org.rocksdb.RocksDB;
import org.rocksdb.util.Environment;

/**
 * Loads RocksDB's native library once per JVM, into {@code java.io.tmpdir} as RocksDB does, and
 * turns a failure into an error that names the library, where it was extracted and why it failed.
 */
final class RocksDBNativeLibrary {

  private static boolean loaded;

  private RocksDBNativeLibrary() {}

  static synchronized void ensureLoaded() {
    if (loaded) {
      return;
    }
    String dir = System.getProperty("java.io.tmpdir");
    try {
      RocksDB.loadLibrary();
    } catch (Throwable t) {
      throw new IllegalStateException(
          "Could not load RocksDB's native library "
              + Environment.getJniLibraryFileName("rocksdb")
              + " (from org.rocksdb:rocksdbjni "
              + RocksDB.class.getPackage().getImplementationVersion()
              + ") into java.io.tmpdir "
              + dir
              + " on "
              + System.getProperty("os.name")
              + "/"
              + System.getProperty("os.arch")
              + ": "
              + t
              + ". The directory must exist, be writable and allow executing files; the platform"
              + " must be one rocksdbjni ships a library for.",
          t);
    }
    loaded = true;
  }
}
