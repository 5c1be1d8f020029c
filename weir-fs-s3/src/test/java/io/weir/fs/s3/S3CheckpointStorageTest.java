package io.weir.fs.s3;

import static org.assertj.core.api.Assertions.assertThat;

import io.weir.runtime.checkpoint.CompletedCheckpoint;
import io.weir.runtime.storage.CheckpointStorageContract;
import io.weir.runtime.storage.CompletedCheckpointLocation;
import io.weir.runtime.storage.FileSystem;
import io.weir.runtime.storage.FileSystemCheckpointStorage;
import io.weir.runtime.storage.FileSystems;
import java.net.URI;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Checkpoint storage on a real S3-compatible server: no rename, {@code _metadata} written last and
 * directly.
 */
class S3CheckpointStorageTest extends CheckpointStorageContract {

  static S3Server server;

  @BeforeAll
  static void startServer() throws Exception {
    server = S3Server.start("plain");
    FileSystems.get(URI.create("s3://plain/"), server.configuration());
  }

  @AfterAll
  static void stopServer() throws Exception {
    FileSystems.closeAll();
    if (server != null) {
      server.close();
    }
  }

  @Test
  void metadataIsWrittenDirectlyAndNeverCopied() throws Exception {
    URI base = newBaseUri();
    FileSystemCheckpointStorage storage =
        new FileSystemCheckpointStorage(base, "0123456789abcdef0123456789abcdef", 0);
    long copiesBefore = server.store().copies.get();
    String pointer =
        storage.commitCheckpoint(
            new CompletedCheckpoint(
                "0123456789abcdef0123456789abcdef", 9, 1_700_000_000_000L, false, List.of()));
    assertThat(server.store().copies.get()).as("S3 copies (a rename)").isEqualTo(copiesBefore);
    FileSystem fs = FileSystems.get(base);
    assertThat(fs.list(URI.create(pointer).getPath())).containsExactly("_metadata");
    assertThat(CompletedCheckpointLocation.load(pointer, null).checkpoint().checkpointId())
        .isEqualTo(9);
  }

  @Override
  protected URI newBaseUri() {
    return URI.create("s3://plain/checkpoints/" + UUID.randomUUID());
  }
}
