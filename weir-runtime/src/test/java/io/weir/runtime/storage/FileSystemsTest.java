package io.weir.runtime.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FileSystemsTest {

  @TempDir Path tmp;

  @Test
  void fileUrisAndPlainPathsAreLocal() {
    assertThat(FileSystems.get(URI.create("file:///var/weir"))).isSameAs(LocalFileSystem.INSTANCE);
    assertThat(FileSystems.get(URI.create("/var/weir"))).isSameAs(LocalFileSystem.INSTANCE);
    assertThat(FileSystems.pathOf(URI.create("file:///var/weir/"))).isEqualTo("/var/weir");
    assertThat(FileSystems.pathOf(FileSystems.toUri("/var/weir checkpoints")))
        .isEqualTo("/var/weir checkpoints");
    assertThat(FileSystems.pathOf(FileSystems.toUri("relative/dir")))
        .isEqualTo(Path.of("relative/dir").toAbsolutePath().toString());
  }

  @Test
  void anUnknownSchemeIsRefusedNamingTheUriTheSchemeAndWhatIsSupported() {
    assertThatThrownBy(() -> FileSystems.get(URI.create("hdfs://namenode:8020/weir")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("hdfs://namenode:8020/weir")
        .hasMessageContaining("'hdfs'")
        .hasMessageContaining("Add the module weir-fs-hadoop");
    assertThatThrownBy(() -> FileSystems.pathOf(FileSystems.toUri("s3://bucket/weir")))
        .hasMessageContaining("'s3'")
        .hasMessageContaining("Add the module weir-fs-s3");
    assertThatThrownBy(() -> FileSystems.get(URI.create("gs://bucket/weir")))
        .hasMessageContaining("gs://bucket/weir")
        .hasMessageContaining("'gs'")
        .hasMessageContaining("file://");
  }

  @Test
  void aFileUriWithTwoSlashesIsCaughtAsAMissingSlash() {
    assertThatThrownBy(() -> FileSystems.pathOf(URI.create("file://tmp/checkpoints")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("file:///tmp/checkpoints");
  }

  @Test
  void localFilesRoundTripThroughCreateOpenListAndDelete() throws IOException {
    FileSystem fs = LocalFileSystem.INSTANCE;
    String dir = tmp.toString() + "/a/b";
    write(fs, dir + "/one", "1");
    write(fs, dir + "/two", "22");

    assertThat(fs.list(dir)).containsExactly("one", "two");
    assertThat(read(fs, dir + "/two")).isEqualTo("22");
    assertThat(fs.exists(dir + "/one")).isTrue();
    assertThatThrownBy(() -> fs.create(dir + "/one", false))
        .isInstanceOf(FileAlreadyExistsException.class);
    write(fs, dir + "/one", "overwritten");
    assertThat(read(fs, dir + "/one")).isEqualTo("overwritten");

    assertThatThrownBy(() -> fs.delete(dir, false)).hasMessageContaining("not empty");
    assertThat(fs.delete(dir, true)).isTrue();
    assertThat(fs.exists(dir)).isFalse();
    assertThat(fs.delete(dir, true)).isFalse();
    assertThatThrownBy(() -> fs.open(dir + "/one")).isInstanceOf(FileNotFoundException.class);
    assertThatThrownBy(() -> fs.list(dir)).isInstanceOf(FileNotFoundException.class);
  }

  @Test
  void renameMovesAtomicallyAndNeverReplaces() throws IOException {
    FileSystem fs = LocalFileSystem.INSTANCE;
    String from = tmp + "/x.inprogress";
    String to = tmp + "/x";
    write(fs, from, "content");

    fs.rename(from, to);
    assertThat(fs.exists(from)).isFalse();
    assertThat(read(fs, to)).isEqualTo("content");

    write(fs, from, "other");
    assertThatThrownBy(() -> fs.rename(from, to)).isInstanceOf(FileAlreadyExistsException.class);
    assertThat(read(fs, to)).isEqualTo("content");
    assertThatThrownBy(() -> fs.rename(tmp + "/nothing", tmp + "/y"))
        .isInstanceOf(FileNotFoundException.class);
  }

  @Test
  void mkdirsAndUrisOfLocalPaths() throws IOException {
    FileSystem fs = LocalFileSystem.INSTANCE;
    String dir = tmp + "/with space/d";
    fs.mkdirs(dir);
    fs.mkdirs(dir);

    assertThat(Files.isDirectory(Path.of(dir))).isTrue();
    URI uri = fs.toUri(dir);
    assertThat(uri.getScheme()).isEqualTo("file");
    assertThat(uri.toString()).startsWith("file:///").endsWith("/d");
    assertThat(FileSystems.pathOf(uri)).isEqualTo(dir);
  }

  private static void write(FileSystem fs, String path, String content) throws IOException {
    try (OutputStream out = fs.create(path, true)) {
      out.write(content.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }
  }

  private static String read(FileSystem fs, String path) throws IOException {
    try (InputStream in = fs.open(path)) {
      return new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
    }
  }
}
