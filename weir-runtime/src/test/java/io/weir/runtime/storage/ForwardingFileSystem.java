package io.weir.runtime.storage;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.util.List;

/**
 * A test file system that forwards everything to the local one under its own scheme, so a test can
 * register it with {@link FileSystems#register} and override one operation to hold or slow it.
 */
public class ForwardingFileSystem implements FileSystem {

  private final String scheme;
  private final FileSystem local = FileSystems.get(URI.create("file:///"));

  public ForwardingFileSystem(String scheme) {
    this.scheme = scheme;
  }

  @Override
  public OutputStream create(String path, boolean overwrite) throws IOException {
    return local.create(path, overwrite);
  }

  @Override
  public InputStream open(String path) throws IOException {
    return local.open(path);
  }

  @Override
  public void rename(String from, String to) throws IOException {
    local.rename(from, to);
  }

  @Override
  public boolean delete(String path, boolean recursive) throws IOException {
    return local.delete(path, recursive);
  }

  @Override
  public List<String> list(String dir) throws IOException {
    return local.list(dir);
  }

  @Override
  public boolean exists(String path) throws IOException {
    return local.exists(path);
  }

  @Override
  public void mkdirs(String dir) throws IOException {
    local.mkdirs(dir);
  }

  @Override
  public URI toUri(String path) {
    return URI.create(scheme + "://" + path);
  }
}
