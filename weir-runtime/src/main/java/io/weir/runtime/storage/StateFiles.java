package io.weir.runtime.storage;

import java.io.BufferedOutputStream;
import java.io.FileNotFoundException;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Objects;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import java.util.zip.CRC32;
import java.util.zip.CheckedInputStream;

/**
 * The state files of one directory of a {@link FileSystem}, as the job's storage, a loaded
 * checkpoint and a savepoint location all keep them: written once with their size and CRC-32
 * recorded in the handle, read back only if both match. Where a handle's relative path lies is the
 * caller's to say ({@link Resolver}); this class only refuses paths that would leave the directory.
 *
 * <p>Thread-safe: holds no mutable state.
 */
final class StateFiles {

  /** Leading or trailing '/', empty, '.' or '..' segments, backslashes: would leave the job dir. */
  static final Pattern UNSAFE_PATH = Pattern.compile("^$|^/|//|/$|(^|/)\\.\\.?(/|$)|\\\\");

  /** Where the file of a handle's relative path is. */
  @FunctionalInterface
  interface Resolver {
    String resolve(String relativePath) throws IOException;
  }

  private final FileSystem fs;
  private final Resolver resolver;

  StateFiles(FileSystem fs, Resolver resolver) {
    this.fs = fs;
    this.resolver = resolver;
  }

  FileSystem fileSystem() {
    return fs;
  }

  /**
   * Where the file of {@code relativePath} is.
   *
   * @throws IOException if the path would leave the directory, or the resolver refuses it
   */
  String resolve(String relativePath) throws IOException {
    if (relativePath == null || UNSAFE_PATH.matcher(relativePath).find()) {
      throw new DamagedStateException(
          "State file path '" + relativePath + "' is not a path inside the job directory");
    }
    return resolver.resolve(relativePath);
  }

  /**
   * Writes a new file at {@code relativePath}, counting and checksumming what {@code writer}
   * writes.
   */
  StreamStateHandle write(
      long checkpointId,
      String relativePath,
      String description,
      CheckpointStateWriter.StateWriter writer)
      throws IOException {
    String path = resolve(relativePath);
    CRC32 crc = new CRC32();
    long size;
    try (OutputStream file = fs.create(path, false);
        CountingCheckedOutputStream out = new CountingCheckedOutputStream(file, crc)) {
      writer.writeTo(out);
      out.flush();
      size = out.count;
    } catch (IOException e) {
      throw new IOException(
          "Could not write state "
              + description
              + " of checkpoint "
              + checkpointId
              + " to "
              + fs.toUri(path)
              + ": "
              + e,
          e);
    }
    return new StreamStateHandle.File(relativePath, size, (int) crc.getValue());
  }

  /**
   * Keeps {@code data} inline when it has at most {@code inlineThresholdBytes}, else writes it to a
   * new file, at the relative path {@code newFile} gives.
   */
  StreamStateHandle writeInlineOrFile(
      long checkpointId,
      byte[] data,
      String description,
      int inlineThresholdBytes,
      Supplier<String> newFile)
      throws IOException {
    if (data.length <= inlineThresholdBytes) {
      return InlineState.of(data);
    }
    return write(checkpointId, newFile.get(), description, out -> out.write(data));
  }

  /** Writes the local file {@code file} to {@code relativePath}. */
  StreamStateHandle copy(long checkpointId, String relativePath, Path file, String description)
      throws IOException {
    return write(checkpointId, relativePath, description, out -> Files.copy(file, out));
  }

  byte[] read(StreamStateHandle handle) throws IOException {
    Objects.requireNonNull(handle, "handle");
    if (handle instanceof StreamStateHandle.Inline inline) {
      return InlineState.read(inline);
    }
    StreamStateHandle.File file = (StreamStateHandle.File) handle;
    String path = resolve(file.relativePath());
    String what = describe(file, path);
    if (file.size() < 0 || file.size() > Integer.MAX_VALUE - 16) {
      throw new DamagedStateException(
          what + " has an impossible size in the metadata: " + file.size());
    }
    byte[] data;
    try (InputStream in = fs.open(path)) {
      // One byte more than expected, to notice a file that grew.
      data = in.readNBytes((int) file.size() + 1);
    } catch (FileNotFoundException | NoSuchFileException e) {
      throw new DamagedStateException(what + " is missing", e);
    }
    verify(what, file, data.length, MetadataSerializer.crc32(data, 0, data.length));
    return data;
  }

  void readToFile(StreamStateHandle handle, Path target) throws IOException {
    if (handle instanceof StreamStateHandle.Inline inline) {
      Files.write(target, InlineState.read(inline), StandardOpenOption.CREATE_NEW);
      return;
    }
    try (OutputStream out = Files.newOutputStream(target, StandardOpenOption.CREATE_NEW)) {
      copyVerified((StreamStateHandle.File) handle, out);
    }
  }

  void verify(StreamStateHandle handle) throws IOException {
    if (handle instanceof StreamStateHandle.Inline inline) {
      InlineState.read(inline);
      return;
    }
    copyVerified((StreamStateHandle.File) handle, OutputStream.nullOutputStream());
  }

  /** Streams the file behind {@code file} into {@code out}, then checks its size and checksum. */
  private void copyVerified(StreamStateHandle.File file, OutputStream out) throws IOException {
    String path = resolve(file.relativePath());
    String what = describe(file, path);
    CRC32 crc = new CRC32();
    long size;
    try (InputStream in = new CheckedInputStream(fs.open(path), crc)) {
      size = in.transferTo(out);
    } catch (FileNotFoundException | NoSuchFileException e) {
      throw new DamagedStateException(what + " is missing", e);
    }
    verify(what, file, size, (int) crc.getValue());
  }

  private String describe(StreamStateHandle.File file, String path) {
    return "State file " + file.relativePath() + " (" + fs.toUri(path) + ")";
  }

  /**
   * Fails naming the file if what was read is not what the handle recorded. A missing file and a
   * mismatch throw {@link DamagedStateException}; any other failure of a read is the file system's
   * own exception, which may pass.
   */
  private static void verify(String what, StreamStateHandle.File file, long size, int crc)
      throws DamagedStateException {
    if (size != file.size()) {
      throw new DamagedStateException(
          what
              + " is corrupt ("
              + (size > file.size() ? "more than " + file.size() : size)
              + " bytes, expected "
              + file.size()
              + ")");
    }
    if (crc != file.crc32()) {
      throw new DamagedStateException(
          what
              + " is corrupt (checksum mismatch: expected "
              + MetadataSerializer.hex(file.crc32())
              + ", computed "
              + MetadataSerializer.hex(crc)
              + ")");
    }
  }

  /** Counts and checksums what passes through, buffered. */
  private static final class CountingCheckedOutputStream extends FilterOutputStream {
    private final CRC32 crc;
    long count;

    CountingCheckedOutputStream(OutputStream out, CRC32 crc) {
      super(new BufferedOutputStream(out, 256 * 1024));
      this.crc = crc;
    }

    @Override
    public void write(int b) throws IOException {
      out.write(b);
      crc.update(b);
      count++;
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
      out.write(b, off, len);
      crc.update(b, off, len);
      count += len;
    }
  }
}
