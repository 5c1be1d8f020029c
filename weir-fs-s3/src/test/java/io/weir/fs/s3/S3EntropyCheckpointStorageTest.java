package io.weir.fs.s3;

import io.weir.runtime.storage.CheckpointStorageContract;
import io.weir.runtime.storage.FileSystems;
import java.net.URI;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * Checkpoint storage on a real S3-compatible server: no rename, {@code _metadata} written last and
 * directly; on paths with the entropy marker, so state files spread over key prefixes.
 */
class S3EntropyCheckpointStorageTest extends CheckpointStorageContract {

  static S3Server server;

  @BeforeAll
  static void startServer() throws Exception {
    server = S3Server.start("spread");
    FileSystems.get(
        URI.create("s3://spread/"),
        server.configuration().setString("s3.entropy.key", "_entropy_"));
  }

  @AfterAll
  static void stopServer() throws Exception {
    FileSystems.closeAll();
    if (server != null) {
      server.close();
    }
  }

  @Override
  protected URI newBaseUri() {
    return URI.create("s3://spread/_entropy_/checkpoints/" + UUID.randomUUID());
  }
}
