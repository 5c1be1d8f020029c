package io.weir.runtime.storage;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.List;
import java.util.stream.Stream;

/**
 * Local files through {@code java.nio.file}. Files are forced to disk when their stream closes and
 * a rename forces its directory, so a committed checkpoint survives a power loss.
 */
final class LocalFileSystem implements FileSystem {

  static final LocalFileSystem INSTANCE = new LocalFileSystem();

  private LocalFileSystem() {}

  @Override
  public OutputStream create(String path, boolean overwrite) throws IOException {
    Path file = Path.of(path);
    Path parent = file.getParent();
    if (parent != null) {
      Files.createDirectories(parent);
    }
    OpenOption[] options =
        overwrite
            ? new OpenOption[] {
              StandardOpenOption.CREATE,
              StandardOpenOption.WRITE,
              StandardOpenOption.TRUNCATE_EXISTING
            }
            : new OpenOption[] {StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE};
    FileChannel channel = FileChannel.open(file, options);
    return new SyncOnCloseOutputStream(channel);
  }

  @Override
  public InputStream open(String path) throws IOException {
    try {
      return Files.newInputStream(Path.of(path));
    } catch (NoSuchFileException e) {
      throw notFound(path, e);
    }
  }

  @Override
  public void rename(String from, String to) throws IOException {
    Path source = Path.of(from);
    Path target = Path.of(to);
    // ATOMIC_MOVE may replace an existing target; the contract says it never does.
    if (Files.exists(target, LinkOption.NOFOLLOW_LINKS)) {
      throw new FileAlreadyExistsException(to);
    }
    try {
      Files.move(source, target, StandardCopyOption.ATOMIC_MOVE);
    } catch (NoSuchFileException e) {
      throw notFound(from, e);
    }
    Path dir = target.toAbsolutePath().getParent();
    if (dir != null) {
      syncDirectory(dir);
    }
  }

  @Override
  public boolean delete(String path, boolean recursive) throws IOException {
    Path root = Path.of(path);
    if (!Files.exists(root, LinkOption.NOFOLLOW_LINKS)) {
      return false;
    }
    if (!recursive || !Files.isDirectory(root, LinkOption.NOFOLLOW_LINKS)) {
      try {
        return Files.deleteIfExists(root);
      } catch (DirectoryNotEmptyException e) {
        throw new IOException("Cannot delete " + path + ": the directory is not empty", e);
      }
    }
    Files.walkFileTree(
        root,
        new SimpleFileVisitor<>() {
          @Override
          public FileVisitResult visitFile(Path file, BasicFileAttributes attrs)
              throws IOException {
            Files.deleteIfExists(file);
            return FileVisitResult.CONTINUE;
          }

          @Override
          public FileVisitResult postVisitDirectory(Path dir, IOException failure)
              throws IOException {
            if (failure != null) {
              throw failure;
            }
            Files.deleteIfExists(dir);
            return FileVisitResult.CONTINUE;
          }
        });
    return true;
  }

  @Override
  public List<String> list(String dir) throws IOException {
    try (Stream<Path> entries = Files.list(Path.of(dir))) {
      return entries.map(p -> p.getFileName().toString()).sorted().toList();
    } catch (NoSuchFileException e) {
      throw notFound(dir, e);
    }
  }

  @Override
  public List<DirectoryEntry> listEntries(String dir) throws IOException {
    List<DirectoryEntry> entries = new java.util.ArrayList<>();
    try (Stream<Path> paths = Files.list(Path.of(dir))) {
      for (Path p : (Iterable<Path>) paths.sorted()::iterator) {
        BasicFileAttributes attributes;
        try {
          attributes = Files.readAttributes(p, BasicFileAttributes.class);
        } catch (NoSuchFileException e) {
          continue; // deleted since the listing
        }
        entries.add(
            new DirectoryEntry(
                p.getFileName().toString(),
                attributes.isDirectory(),
                attributes.isDirectory() ? -1 : attributes.size()));
      }
    } catch (NoSuchFileException e) {
      throw notFound(dir, e);
    }
    return entries;
  }

  @Override
  public boolean exists(String path) {
    return Files.exists(Path.of(path));
  }

  @Override
  public void mkdirs(String dir) throws IOException {
    Files.createDirectories(Path.of(dir));
  }

  @Override
  public URI toUri(String path) {
    String absolute = Path.of(path).toAbsolutePath().normalize().toString().replace('\\', '/');
    if (!absolute.startsWith("/")) {
      absolute = "/" + absolute; // a Windows drive: file:///C:/...
    }
    try {
      return new URI("file", "", absolute, null, null);
    } catch (URISyntaxException e) {
      throw new IllegalArgumentException("Cannot turn local path " + path + " into a URI", e);
    }
  }

  @Override
  public String toString() {
    return "LocalFileSystem";
  }

  private static FileNotFoundException notFound(String path, NoSuchFileException cause) {
    FileNotFoundException e = new FileNotFoundException(path + " does not exist");
    e.initCause(cause);
    return e;
  }

  /** Makes a rename durable on file systems that need it; not every platform can open a dir. */
  private static void syncDirectory(Path dir) {
    try (FileChannel channel = FileChannel.open(dir, StandardOpenOption.READ)) {
      channel.force(true);
    } catch (IOException | UnsupportedOperationException e) {
      // Best effort: the rename itself is atomic either way.
    }
  }

  /** Writes through a channel and forces it to disk before closing. */
  private static final class SyncOnCloseOutputStream extends OutputStream {
    private final FileChannel channel;
    private final OutputStream out;
    private boolean closed;

    SyncOnCloseOutputStream(FileChannel channel) {
      this.channel = channel;
      this.out = Channels.newOutputStream(channel);
    }

    @Override
    public void write(int b) throws IOException {
      out.write(b);
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
      out.write(b, off, len);
    }

    @Override
    public void close() throws IOException {
      if (closed) {
        return;
      }
      closed = true;
      try {
        channel.force(true);
      } finally {
        out.close();
      }
    }
  }
}
