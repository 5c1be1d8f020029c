package io.weir.benchmarks.w3s;

import java.util.Locale;

/** Where W3S writes its checkpoints. */
public enum Storage {
  /** A fresh directory on the local disk, as W3. */
  LOCAL,
  /** An HDFS mini cluster (one name node, one data node) on 127.0.0.1, in a helper JVM. */
  HDFS,
  /** s3proxy on a file-system blob store on 127.0.0.1, path style, V4 auth, in a helper JVM. */
  S3;

  public String id() {
    return name().toLowerCase(Locale.ROOT);
  }

  public static Storage ofId(String id) {
    for (Storage storage : values()) {
      if (storage.id().equals(id)) {
        return storage;
      }
    }
    throw new IllegalArgumentException("Unknown storage '" + id + "'; use local, hdfs or s3.");
  }
}
