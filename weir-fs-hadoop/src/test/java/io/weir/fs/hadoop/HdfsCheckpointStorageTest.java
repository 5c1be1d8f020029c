package io.weir.fs.hadoop;

import io.weir.api.config.Configuration;
import io.weir.runtime.storage.CheckpointStorageContract;
import io.weir.runtime.storage.FileSystems;
import java.io.IOException;
import java.net.URI;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** Checkpoint storage on a real HDFS: metadata committed by HDFS's atomic rename. */
class HdfsCheckpointStorageTest extends CheckpointStorageContract {

  static MiniHdfs hdfs;

  @BeforeAll
  static void startHdfs() throws IOException {
    hdfs = MiniHdfs.start();
    FileSystems.get(hdfs.uri().resolve("/"), new Configuration());
  }

  @AfterAll
  static void stopHdfs() {
    FileSystems.closeAll();
    if (hdfs != null) {
      hdfs.close();
    }
  }

  @Override
  protected URI newBaseUri() {
    return URI.create(hdfs.uri() + "/checkpoints/" + UUID.randomUUID());
  }
}
