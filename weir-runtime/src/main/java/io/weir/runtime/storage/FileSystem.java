package io.weir.runtime.storage;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.nio.file.FileAlreadyExistsException;
import java.util.Collection;
import java.util.List;

/**
 * The few file-system operations checkpoint storage needs, small enough to implement over local
 * files, HDFS and S3. Paths are strings with {@code '/'} separators in the file system's own
 * namespace (for local files: an absolute path; for HDFS or S3: the path part of the URI), never
 * {@link java.nio.file.Path}s, so a remote file system need not pretend to be a local one. Obtain
 * one with {@link FileSystems#get(URI)}.
 *
 * <p>The only step that must be atomic is {@link #rename}: checkpoint storage writes metadata to a
 * temporary name and renames it into place, so a reader sees either no metadata or all of it. An
 * object store whose rename is a copy (S3) instead makes {@link #create} atomic on close (the file
 * becomes visible only complete) and answers false to {@link #hasAtomicRename}; checkpoint storage
 * then writes the metadata last, directly under its final name.
 *
 * <p>Implementations are thread-safe.
 */
public interface FileSystem {

  /**
   * Opens a new file for writing, creating missing parent directories. The bytes are durable once
   * the stream is closed.
   *
   * @throws FileAlreadyExistsException if the file exists and {@code overwrite} is false
   */
  OutputStream create(String path, boolean overwrite) throws IOException;

  /**
   * Opens a file for reading.
   *
   * @throws FileNotFoundException if there is no such file
   */
  InputStream open(String path) throws IOException;

  /**
   * Moves a file to a new name in one atomic step: readers see the file under its old name or under
   * its new name, complete in both cases. This is how checkpoint metadata is committed.
   *
   * @throws FileNotFoundException if {@code from} does not exist
   * @throws FileAlreadyExistsException if {@code to} exists (it is never replaced)
   */
  void rename(String from, String to) throws IOException;

  /**
   * Deletes a file, or a directory and (when {@code recursive}) everything under it.
   *
   * @return false if there was nothing to delete
   * @throws IOException if {@code path} is a non-empty directory and {@code recursive} is false
   */
  boolean delete(String path, boolean recursive) throws IOException;

  /**
   * Deletes files (not directories) in as few requests as the file system allows; files that do not
   * exist are passed over. On S3 one request deletes up to 1000 files.
   */
  default void deleteFiles(Collection<String> paths) throws IOException {
    for (String path : paths) {
      delete(path, false);
    }
  }

  /**
   * The names (not paths) of the entries of a directory, sorted.
   *
   * @throws FileNotFoundException if there is no such directory
   */
  List<String> list(String dir) throws IOException;

  /**
   * An entry of a directory.
   *
   * @param name its name, not its path
   * @param directory true for a directory (on an object store: a common prefix)
   * @param size a file's length in bytes; -1 for a directory or where unknown
   */
  record DirectoryEntry(String name, boolean directory, long size) {}

  /**
   * The entries of a directory with their kind and size, sorted by name: what a scan of a job's
   * checkpoint directory reads, in one listing request per page on an object store. This default
   * asks {@link #list} and then probes each entry, so file systems override it.
   *
   * @throws FileNotFoundException if there is no such directory
   */
  default List<DirectoryEntry> listEntries(String dir) throws IOException {
    List<DirectoryEntry> entries = new java.util.ArrayList<>();
    for (String name : list(dir)) {
      String child = dir.endsWith("/") ? dir + name : dir + "/" + name;
      boolean directory;
      try {
        list(child);
        directory = true;
      } catch (IOException e) {
        directory = false;
      }
      entries.add(new DirectoryEntry(name, directory, -1));
    }
    return entries;
  }

  /** Whether a file or directory exists at {@code path}. */
  boolean exists(String path) throws IOException;

  /** Creates a directory and any missing parents; does nothing if it exists. */
  void mkdirs(String dir) throws IOException;

  /** The URI a user can give back to {@link FileSystems#get(URI)} to reach {@code path}. */
  URI toUri(String path);

  /**
   * Whether {@link #rename} is one atomic step. False for object stores, where a rename is a copy
   * and a delete; on those, {@link #create} must make a file visible only once its stream closed
   * without error, which is how checkpoint storage commits metadata there.
   */
  default boolean hasAtomicRename() {
    return true;
  }

  /**
   * Checks, cheaply and before any task runs, that the directory {@code path} can be used: the
   * server answers, the credentials are accepted, the bucket exists. Does not create anything.
   *
   * @throws IOException naming the URI at fault and what to do
   */
  default void checkAccess(String path) throws IOException {}
}
