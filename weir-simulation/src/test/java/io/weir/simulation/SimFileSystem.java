package io.weir.simulation;

import io.weir.runtime.storage.FileSystem;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.nio.file.FileAlreadyExistsException;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * A file system in memory for one simulation run, which asks its {@link Faults} before every write
 * and read whether to fail it, and shows every delete to a guard first. A failed write may leave a
 * partial file behind, as a process that dies in the middle of an upload does. Directories exist
 * implicitly (a path is a directory when a file lies below it) or explicitly ({@link #mkdirs}).
 *
 * <p>Not thread-safe: the simulation's one thread uses it.
 */
final class SimFileSystem implements FileSystem {

  /** What the simulation decides about each operation. */
  interface Faults {
    /** How a write of {@code path} goes. */
    WriteOutcome write(String path);

    /** Whether a read of {@code path} fails. */
    boolean failRead(String path);

    /** Whether the rename to {@code to} fails (before it happens). */
    boolean failRename(String to);

    /** Sees every delete before it happens; may throw to report a violation. */
    void beforeDelete(String path, boolean recursive);
  }

  /** How one write ends. */
  enum WriteOutcome {
    /** Written completely. */
    OK,
    /** Fails at once; nothing is written. */
    FAIL,
    /** Fails on close with half the bytes in the file. */
    PARTIAL
  }

  private final String scheme;
  private final Faults faults;
  private final TreeMap<String, byte[]> files = new TreeMap<>();
  private final TreeSet<String> dirs = new TreeSet<>();

  SimFileSystem(String scheme, Faults faults) {
    this.scheme = scheme;
    this.faults = faults;
  }

  @Override
  public OutputStream create(String path, boolean overwrite) throws IOException {
    if (!overwrite && files.containsKey(path)) {
      throw new FileAlreadyExistsException(path);
    }
    WriteOutcome outcome = faults.write(path);
    if (outcome == WriteOutcome.FAIL) {
      throw new IOException("injected: cannot create " + path);
    }
    return new ByteArrayOutputStream() {
      private boolean closed;

      @Override
      public void close() throws IOException {
        if (closed) {
          return;
        }
        closed = true;
        byte[] bytes = toByteArray();
        if (outcome == WriteOutcome.PARTIAL) {
          byte[] half = new byte[bytes.length / 2];
          System.arraycopy(bytes, 0, half, 0, half.length);
          files.put(path, half);
          throw new IOException("injected: the upload of " + path + " broke off");
        }
        files.put(path, bytes);
      }
    };
  }

  @Override
  public InputStream open(String path) throws IOException {
    byte[] bytes = files.get(path);
    if (bytes == null) {
      throw new FileNotFoundException(path);
    }
    if (faults.failRead(path)) {
      throw new IOException("injected: reading " + path + " timed out");
    }
    return new ByteArrayInputStream(bytes);
  }

  @Override
  public void rename(String from, String to) throws IOException {
    byte[] bytes = files.get(from);
    if (bytes == null) {
      throw new FileNotFoundException(from);
    }
    if (files.containsKey(to)) {
      throw new FileAlreadyExistsException(to);
    }
    if (faults.failRename(to)) {
      throw new IOException("injected: cannot rename " + from + " to " + to);
    }
    files.remove(from);
    files.put(to, bytes);
  }

  @Override
  public boolean delete(String path, boolean recursive) throws IOException {
    String prefix = path + "/";
    boolean isDir = dirs.contains(path) || hasBelow(prefix);
    if (!files.containsKey(path) && !isDir) {
      return false;
    }
    if (isDir && !recursive && hasBelow(prefix)) {
      throw new IOException(path + " is a non-empty directory");
    }
    faults.beforeDelete(path, recursive);
    files.remove(path);
    files.subMap(prefix, prefix + Character.MAX_VALUE).clear();
    dirs.remove(path);
    dirs.subSet(prefix, prefix + Character.MAX_VALUE).clear();
    return true;
  }

  private boolean hasBelow(String prefix) {
    String f = files.ceilingKey(prefix);
    String d = dirs.ceiling(prefix);
    return (f != null && f.startsWith(prefix)) || (d != null && d.startsWith(prefix));
  }

  @Override
  public List<String> list(String dir) throws IOException {
    List<DirectoryEntry> entries = listEntries(dir);
    List<String> names = new ArrayList<>(entries.size());
    entries.forEach(e -> names.add(e.name()));
    return names;
  }

  @Override
  public List<DirectoryEntry> listEntries(String dir) throws IOException {
    if (files.containsKey(dir) || (!dirs.contains(dir) && !hasBelow(dir + "/"))) {
      throw new FileNotFoundException(dir);
    }
    String prefix = dir + "/";
    TreeMap<String, DirectoryEntry> entries = new TreeMap<>();
    for (var e : files.subMap(prefix, prefix + Character.MAX_VALUE).entrySet()) {
      String rest = e.getKey().substring(prefix.length());
      int slash = rest.indexOf('/');
      if (slash < 0) {
        entries.put(rest, new DirectoryEntry(rest, false, e.getValue().length));
      } else {
        String name = rest.substring(0, slash);
        entries.put(name, new DirectoryEntry(name, true, -1));
      }
    }
    for (String d : dirs.subSet(prefix, prefix + Character.MAX_VALUE)) {
      String rest = d.substring(prefix.length());
      String name = rest.contains("/") ? rest.substring(0, rest.indexOf('/')) : rest;
      entries.putIfAbsent(name, new DirectoryEntry(name, true, -1));
    }
    return new ArrayList<>(entries.values());
  }

  @Override
  public boolean exists(String path) {
    return files.containsKey(path) || dirs.contains(path) || hasBelow(path + "/");
  }

  @Override
  public void mkdirs(String dir) {
    dirs.add(dir);
  }

  @Override
  public URI toUri(String path) {
    return URI.create(scheme + "://" + path);
  }

  /** Every file, for checks and for the report. */
  TreeMap<String, byte[]> files() {
    return files;
  }
}
