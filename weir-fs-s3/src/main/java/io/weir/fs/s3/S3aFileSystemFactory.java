package io.weir.fs.s3;

/** {@code s3a://}, the Hadoop name for the same file system, with the same {@code s3.*} keys. */
public final class S3aFileSystemFactory extends S3FileSystemFactory {

  @Override
  public String scheme() {
    return "s3a";
  }
}
