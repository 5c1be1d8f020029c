package io.weir.runtime.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.util.Random;
import java.util.zip.CRC32;
import org.junit.jupiter.api.Test;

/**
 * What every {@link FileSystem} must do, run against each implementation (local files here, HDFS
 * and S3 in their modules, against real servers). A subclass gives the file system and a fresh, not
 * yet existing directory per test.
 */
public abstract class FileSystemContract {

  /** The file system under test. */
  protected abstract FileSystem fs();

  /** A directory path for one test, unique, that does not exist yet. */
  protected abstract String newDirectory();

  /** Bytes for the large-file test: enough to need more than one part on an object store. */
  protected long largeFileBytes() {
    return 12L * 1024 * 1024;
  }

  @Test
  void writtenBytesReadBack() throws IOException {
    String file = newDirectory() + "/a/b/file";
    write(file, "hello");
    assertThat(read(file)).isEqualTo("hello");
    assertThat(fs().exists(file)).isTrue();
  }

  @Test
  void anEmptyFileIsAFile() throws IOException {
    String file = newDirectory() + "/empty";
    write(file, "");
    assertThat(fs().exists(file)).isTrue();
    assertThat(read(file)).isEmpty();
  }

  @Test
  void aLargeFileIsStreamedAndReadsBackIntact() throws IOException {
    String file = newDirectory() + "/large";
    long size = largeFileBytes();
    Random random = new Random(42);
    byte[] chunk = new byte[64 * 1024 + 7];
    CRC32 written = new CRC32();
    try (OutputStream out = fs().create(file, false)) {
      for (long left = size; left > 0; ) {
        random.nextBytes(chunk);
        int n = (int) Math.min(chunk.length, left);
        out.write(chunk, 0, n);
        written.update(chunk, 0, n);
        left -= n;
      }
    }
    CRC32 read = new CRC32();
    long count = 0;
    try (InputStream in = fs().open(file)) {
      byte[] buf = new byte[100_000];
      for (int n; (n = in.read(buf)) > 0; ) {
        read.update(buf, 0, n);
        count += n;
      }
    }
    assertThat(count).isEqualTo(size);
    assertThat(read.getValue()).isEqualTo(written.getValue());
  }

  @Test
  void createWithoutOverwriteRefusesAnExistingFile() throws IOException {
    String file = newDirectory() + "/file";
    write(file, "first");
    assertThatThrownBy(() -> fs().create(file, false).close())
        .isInstanceOf(FileAlreadyExistsException.class);
    assertThat(read(file)).isEqualTo("first");
    try (OutputStream out = fs().create(file, true)) {
      out.write("second".getBytes(StandardCharsets.UTF_8));
    }
    assertThat(read(file)).isEqualTo("second");
  }

  @Test
  void openingAMissingFileFailsWithFileNotFound() {
    String file = newDirectory() + "/missing";
    assertThatThrownBy(() -> fs().open(file).close()).isInstanceOf(FileNotFoundException.class);
  }

  @Test
  void listGivesSortedNamesOfFilesAndDirectories() throws IOException {
    String dir = newDirectory();
    write(dir + "/b", "1");
    write(dir + "/a", "2");
    write(dir + "/sub/c", "3");
    fs().mkdirs(dir + "/empty");
    assertThat(fs().list(dir)).containsExactly("a", "b", "empty", "sub");
    assertThat(fs().list(dir + "/sub")).containsExactly("c");
    assertThat(fs().list(dir + "/empty")).isEmpty();
  }

  @Test
  void listEntriesGivesKindsAndSizesOfFiles() throws IOException {
    String dir = newDirectory();
    write(dir + "/b", "12345");
    write(dir + "/a", "");
    write(dir + "/sub/c", "3");
    fs().mkdirs(dir + "/empty");
    assertThat(fs().listEntries(dir))
        .containsExactly(
            new FileSystem.DirectoryEntry("a", false, 0),
            new FileSystem.DirectoryEntry("b", false, 5),
            new FileSystem.DirectoryEntry("empty", true, -1),
            new FileSystem.DirectoryEntry("sub", true, -1));
    assertThat(fs().listEntries(dir + "/sub"))
        .containsExactly(new FileSystem.DirectoryEntry("c", false, 1));
    assertThatThrownBy(() -> fs().listEntries(dir + "/missing"))
        .isInstanceOf(FileNotFoundException.class);
  }

  @Test
  void listingAMissingDirectoryFailsWithFileNotFound() {
    String dir = newDirectory();
    assertThatThrownBy(() -> fs().list(dir)).isInstanceOf(FileNotFoundException.class);
  }

  @Test
  void existsSeesFilesAndDirectoriesButNotPrefixesOfNames() throws IOException {
    String dir = newDirectory();
    assertThat(fs().exists(dir)).isFalse();
    write(dir + "/sub/file", "x");
    assertThat(fs().exists(dir)).isTrue();
    assertThat(fs().exists(dir + "/sub")).isTrue();
    assertThat(fs().exists(dir + "/su")).isFalse();
    assertThat(fs().exists(dir + "/sub/fil")).isFalse();
  }

  @Test
  void mkdirsIsIdempotent() throws IOException {
    String dir = newDirectory() + "/x/y";
    fs().mkdirs(dir);
    fs().mkdirs(dir);
    assertThat(fs().exists(dir)).isTrue();
  }

  @Test
  void deleteRemovesFilesAndWholeTrees() throws IOException {
    String dir = newDirectory();
    write(dir + "/keep", "k");
    write(dir + "/tree/one", "1");
    write(dir + "/tree/deeper/two", "2");
    fs().mkdirs(dir + "/tree/empty");

    assertThat(fs().delete(dir + "/missing", false)).isFalse();
    assertThatThrownBy(() -> fs().delete(dir + "/tree", false)).isInstanceOf(IOException.class);
    assertThat(fs().exists(dir + "/tree/one")).isTrue();

    assertThat(fs().delete(dir + "/tree", true)).isTrue();
    assertThat(fs().exists(dir + "/tree")).isFalse();
    assertThat(fs().exists(dir + "/tree/deeper/two")).isFalse();
    assertThat(fs().list(dir)).containsExactly("keep");
    assertThat(fs().delete(dir + "/keep", false)).isTrue();
    assertThat(fs().exists(dir + "/keep")).isFalse();
  }

  @Test
  void deleteFilesDeletesManyAndPassesOverMissingOnes() throws IOException {
    String dir = newDirectory();
    java.util.List<String> files = new java.util.ArrayList<>();
    for (int i = 0; i < 25; i++) {
      files.add(dir + "/f" + i);
      write(dir + "/f" + i, "x");
    }
    write(dir + "/kept", "k");
    files.add(dir + "/never-written");
    fs().deleteFiles(files);
    assertThat(fs().list(dir)).containsExactly("kept");
  }

  @Test
  void renameMovesAFileAndNeverReplacesOne() throws IOException {
    assumeThat(fs().hasAtomicRename()).as("atomic rename").isTrue();
    String dir = newDirectory();
    write(dir + "/from", "data");
    write(dir + "/taken", "other");
    fs().rename(dir + "/from", dir + "/to");
    assertThat(fs().exists(dir + "/from")).isFalse();
    assertThat(read(dir + "/to")).isEqualTo("data");
    assertThatThrownBy(() -> fs().rename(dir + "/to", dir + "/taken"))
        .isInstanceOf(FileAlreadyExistsException.class);
    assertThat(read(dir + "/taken")).isEqualTo("other");
    assertThatThrownBy(() -> fs().rename(dir + "/gone", dir + "/new"))
        .isInstanceOf(FileNotFoundException.class);
  }

  @Test
  void toUriLeadsBackToTheSameFileSystemAndPath() {
    String dir = newDirectory();
    java.net.URI uri = fs().toUri(dir);
    assertThat(FileSystems.get(uri)).isSameAs(fs());
    assertThat(FileSystems.pathOf(uri)).isEqualTo(dir);
  }

  @Test
  void accessToAWritableDirectoryIsGranted() throws IOException {
    fs().checkAccess(newDirectory());
  }

  protected final void write(String path, String text) throws IOException {
    try (OutputStream out = fs().create(path, false)) {
      out.write(text.getBytes(StandardCharsets.UTF_8));
    }
  }

  protected final String read(String path) throws IOException {
    try (InputStream in = fs().open(path)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }
}
