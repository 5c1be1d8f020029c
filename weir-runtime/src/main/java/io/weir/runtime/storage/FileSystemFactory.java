package io.weir.runtime.storage;

import io.weir.api.config.Configuration;
import java.io.IOException;
import java.net.URI;
import java.util.List;

/**
 * Makes the {@link FileSystem} for one URI scheme. A module that brings a file system (such as
 * {@code weir-fs-hadoop} for {@code hdfs://} or {@code weir-fs-s3} for {@code s3://}) lists its
 * factories in {@code META-INF/services/io.weir.runtime.storage.FileSystemFactory}, and {@link
 * FileSystems} finds them through {@link java.util.ServiceLoader}.
 *
 * <p>Implementations are thread-safe and have a public no-argument constructor.
 */
public interface FileSystemFactory {

  /** The URI scheme served, in lower case: {@code "hdfs"}, {@code "s3"}. */
  String scheme();

  /**
   * The prefixes of the configuration keys that configure this file system, such as {@code "s3."}.
   * {@link FileSystems} keeps one file system per scheme, authority and value of these keys, so
   * jobs that configure it alike share it.
   */
  default List<String> configPrefixes() {
    return List.of(scheme() + ".");
  }

  /**
   * A file system for {@code uri}'s authority (an HDFS name node, an S3 bucket). Its paths are the
   * path component of URIs with this scheme and authority.
   *
   * @param conf the job's configuration (only the keys under {@link #configPrefixes} matter)
   * @throws IOException or {@link IllegalArgumentException} naming the URI or key at fault
   */
  FileSystem create(URI uri, Configuration conf) throws IOException;
}
