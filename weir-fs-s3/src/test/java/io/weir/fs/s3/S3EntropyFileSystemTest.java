package io.weir.fs.s3;

import static org.assertj.core.api.Assertions.assertThat;

import io.weir.runtime.storage.FileSystem;
import io.weir.runtime.storage.FileSystemContract;
import io.weir.runtime.storage.FileSystems;
import java.io.IOException;
import java.net.URI;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The file-system contract again, on paths that hold the entropy marker: state files go under
 * entropy prefixes, metadata and directory markers under the path without the marker, and listing,
 * existence and recursive delete still see one directory tree.
 */
class S3EntropyFileSystemTest extends FileSystemContract {

  static final String BUCKET = "entropy";
  static final String MARKER = "_entropy_";
  static S3Server server;
  static FileSystem fs;

  /** The same bucket without entropy: sees the keys as they are. */
  static S3FileSystem raw;

  @BeforeAll
  static void startServer() throws Exception {
    server = S3Server.start(BUCKET);
    fs =
        FileSystems.get(
            URI.create("s3://" + BUCKET + "/"),
            server
                .configuration()
                .setString("s3.entropy.key", MARKER)
                .setString("s3.entropy.length", "4")
                .setString("s3.paging.maximum", "3"));
    raw = new S3FileSystem("s3", BUCKET, S3Settings.from(server.configuration()), null);
  }

  @AfterAll
  static void stopServer() throws Exception {
    FileSystems.closeAll();
    if (raw != null) {
      raw.close();
    }
    if (server != null) {
      server.close();
    }
  }

  @Override
  protected FileSystem fs() {
    return fs;
  }

  @Override
  protected String newDirectory() {
    return "/" + MARKER + "/contract/" + UUID.randomUUID();
  }

  @Test
  void stateFilesSpreadOverEntropyPrefixesAndMetadataStaysWithoutThem() throws IOException {
    String job = "/" + MARKER + "/checkpoints/" + UUID.randomUUID();
    for (int n = 1; n <= 20; n++) {
      write(job + "/chk-" + n + "/state", "s" + n);
      write(job + "/chk-" + n + "/_metadata", "m" + n);
    }
    String logicalJob = job.replace("/" + MARKER, "");
    for (int n = 1; n <= 20; n++) {
      // Metadata where a user looks for it: the path without the marker.
      assertThat(raw.exists(logicalJob + "/chk-" + n + "/_metadata")).isTrue();
      assertThat(raw.exists(logicalJob + "/chk-" + n + "/state")).isFalse();
      assertThat(read(job + "/chk-" + n + "/state")).isEqualTo("s" + n);
    }
    java.util.List<String> top = raw.list("/");
    long prefixes =
        top.stream().filter(name -> name.matches("[0-9a-z]{4}") && !name.equals("chec")).count();
    assertThat(prefixes).as("entropy prefixes among %s", top).isGreaterThan(10);
    assertThat(fs.list(job)).hasSize(20).contains("chk-1", "chk-20");
    assertThat(fs.list(job + "/chk-7")).containsExactly("_metadata", "state");

    assertThat(fs.delete(job, true)).isTrue();
    assertThat(fs.exists(job)).isFalse();
    for (String name : raw.list("/")) {
      if (!name.equals("contract") && !name.equals("checkpoints")) {
        assertThat(raw.list("/" + name)).doesNotContain("checkpoints");
      }
    }
  }
}
