package io.weir.fs.s3;

import io.weir.api.config.Configuration;
import io.weir.runtime.storage.FileSystem;
import io.weir.runtime.storage.FileSystemFactory;
import java.net.URI;

/**
 * Makes the {@code s3://} file system for a bucket, configured by the job's {@code s3.*} keys (see
 * {@link S3Settings}); found by {@link io.weir.runtime.storage.FileSystems} through {@link
 * java.util.ServiceLoader}.
 */
public class S3FileSystemFactory implements FileSystemFactory {

  @Override
  public String scheme() {
    return "s3";
  }

  /** All {@code s3.*} keys, also for {@code s3a://} (as in Flink). */
  @Override
  public java.util.List<String> configPrefixes() {
    return java.util.List.of("s3.");
  }

  @Override
  public FileSystem create(URI uri, Configuration conf) {
    return new S3FileSystem(scheme(), uri.getAuthority(), S3Settings.from(conf), null);
  }
}
