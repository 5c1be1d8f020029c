package io.weir.fs.hadoop;

import io.weir.runtime.storage.FileSystem;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.FileAlreadyExistsException;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.fs.FileContext;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.Options;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.permission.FsAction;
import org.apache.hadoop.security.AccessControlException;
import org.apache.hadoop.security.UserGroupInformation;

/**
 * One HDFS name space (the name node of a URI's authority) through Hadoop's client. Rename is
 * HDFS's own, atomic and never replacing, so checkpoint metadata is committed by rename as on local
 * disk. Thread-safe, as Hadoop's client is.
 */
final class HadoopFileSystem implements FileSystem, AutoCloseable {

  private final URI root;
  private final org.apache.hadoop.fs.FileSystem fs;
  private final FileContext context;

  HadoopFileSystem(URI uri, org.apache.hadoop.conf.Configuration conf) throws IOException {
    this.root = URI.create(uri.getScheme() + "://" + uri.getAuthority());
    // A private instance, not Hadoop's shared cache, so that closing it closes nothing else.
    this.fs = org.apache.hadoop.fs.FileSystem.newInstance(root, conf);
    this.context = FileContext.getFileContext(root, conf);
  }

  @Override
  public OutputStream create(String path, boolean overwrite) throws IOException {
    try {
      return fs.create(new Path(path), overwrite);
    } catch (org.apache.hadoop.fs.FileAlreadyExistsException e) {
      throw alreadyExists(path, e);
    } catch (IOException e) {
      throw wrap("create", path, e);
    }
  }

  @Override
  public InputStream open(String path) throws IOException {
    try {
      return fs.open(new Path(path));
    } catch (FileNotFoundException e) {
      throw e;
    } catch (IOException e) {
      throw wrap("open", path, e);
    }
  }

  @Override
  public void rename(String from, String to) throws IOException {
    try {
      // Options.Rename.NONE: fails instead of replacing an existing target.
      context.rename(new Path(from), new Path(to), Options.Rename.NONE);
    } catch (org.apache.hadoop.fs.FileAlreadyExistsException e) {
      throw alreadyExists(to, e);
    } catch (FileNotFoundException e) {
      throw e;
    } catch (IOException e) {
      throw wrap("rename " + toUri(from) + " to", to, e);
    }
  }

  @Override
  public boolean delete(String path, boolean recursive) throws IOException {
    try {
      return fs.delete(new Path(path), recursive);
    } catch (FileNotFoundException e) {
      return false;
    } catch (IOException e) {
      throw wrap("delete", path, e);
    }
  }

  @Override
  public List<String> list(String dir) throws IOException {
    Path p = new Path(dir);
    try {
      if (!fs.getFileStatus(p).isDirectory()) {
        throw new IOException(toUri(dir) + " is a file, not a directory");
      }
      List<String> names = new ArrayList<>();
      for (FileStatus status : fs.listStatus(p)) {
        names.add(status.getPath().getName());
      }
      names.sort(null);
      return names;
    } catch (FileNotFoundException e) {
      FileNotFoundException notFound = new FileNotFoundException(toUri(dir) + " does not exist");
      notFound.initCause(e);
      throw notFound;
    }
  }

  /** One listing gives names, kinds and sizes. */
  @Override
  public List<DirectoryEntry> listEntries(String dir) throws IOException {
    Path p = new Path(dir);
    try {
      if (!fs.getFileStatus(p).isDirectory()) {
        throw new IOException(toUri(dir) + " is a file, not a directory");
      }
      List<DirectoryEntry> entries = new ArrayList<>();
      for (FileStatus status : fs.listStatus(p)) {
        entries.add(
            new DirectoryEntry(
                status.getPath().getName(),
                status.isDirectory(),
                status.isDirectory() ? -1 : status.getLen()));
      }
      entries.sort(java.util.Comparator.comparing(DirectoryEntry::name));
      return entries;
    } catch (FileNotFoundException e) {
      FileNotFoundException notFound = new FileNotFoundException(toUri(dir) + " does not exist");
      notFound.initCause(e);
      throw notFound;
    }
  }

  @Override
  public boolean exists(String path) throws IOException {
    try {
      return fs.exists(new Path(path));
    } catch (IOException e) {
      throw wrap("look up", path, e);
    }
  }

  @Override
  public void mkdirs(String dir) throws IOException {
    try {
      if (!fs.mkdirs(new Path(dir))) {
        throw new IOException("Could not create the directory " + toUri(dir));
      }
    } catch (IOException e) {
      throw wrap("create the directory", dir, e);
    }
  }

  @Override
  public URI toUri(String path) {
    try {
      return new URI(root.getScheme(), root.getAuthority(), path, null, null);
    } catch (URISyntaxException e) {
      throw new IllegalArgumentException("Cannot turn HDFS path " + path + " into a URI", e);
    }
  }

  /**
   * Asks the name node for the nearest existing directory at or above {@code path}: fails naming
   * the URI if the name node does not answer, if that is a file, or if this user may not write
   * there.
   */
  @Override
  public void checkAccess(String path) throws IOException {
    Path p = new Path(path.isEmpty() ? "/" : path);
    try {
      while (!fs.exists(p)) {
        p = p.getParent();
      }
      if (!fs.getFileStatus(p).isDirectory()) {
        throw new IOException(toUri(p.toUri().getPath()) + " is a file, not a directory");
      }
      fs.access(p, FsAction.WRITE);
    } catch (AccessControlException e) {
      throw new IOException(
          "the HDFS user "
              + UserGroupInformation.getCurrentUser().getShortUserName()
              + " may not write to "
              + toUri(p.toUri().getPath())
              + ", where "
              + toUri(path)
              + " would be created: grant write permission there, or choose another directory",
          e);
    } catch (IOException e) {
      throw new IOException(
          "the HDFS name node of "
              + toUri(path)
              + " cannot be reached or refused the request ("
              + e
              + "). Check that the name node runs at "
              + root.getAuthority()
              + " and that the URI names it (host and RPC port, usually 8020)",
          e);
    }
  }

  @Override
  public void close() throws IOException {
    fs.close();
  }

  @Override
  public String toString() {
    return "HadoopFileSystem[" + root + "]";
  }

  private FileAlreadyExistsException alreadyExists(String path, IOException cause) {
    FileAlreadyExistsException e = new FileAlreadyExistsException(toUri(path).toString());
    e.initCause(cause);
    return e;
  }

  private IOException wrap(String action, String path, IOException e) {
    if (e instanceof FileAlreadyExistsException || e.getMessage() == null) {
      return e;
    }
    String uri = toUri(path).toString();
    if (e.getMessage().contains(uri)) {
      return e;
    }
    return new IOException("Could not " + action + " " + uri + ": " + e.getMessage(), e);
  }
}
