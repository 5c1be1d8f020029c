package io.weir.fs.hadoop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.weir.api.JobClient;
import io.weir.api.JobExecutionResult;
import io.weir.api.StreamEnvironment;
import io.weir.api.config.Configuration;
import io.weir.api.functions.OpenContext;
import io.weir.api.functions.RichMapFunction;
import io.weir.connector.files.testing.CountingJob;
import io.weir.runtime.storage.FileSystem;
import io.weir.runtime.storage.FileSystems;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The exactly-once-under-failures job with its checkpoints on a real HDFS, and a job whose name
 * node is down refused before any task runs.
 */
class HdfsExactlyOnceTest {

  static MiniHdfs hdfs;

  @BeforeAll
  static void startHdfs() throws IOException {
    hdfs = MiniHdfs.start();
  }

  @AfterAll
  static void stopHdfs() {
    FileSystems.closeAll();
    if (hdfs != null) {
      hdfs.close();
    }
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"hashmap", "rocksdb-incremental"})
  void countsAreExactAfterRepeatedFailures(String backend, @TempDir Path dir) throws Exception {
    String base = hdfs.uri() + "/checkpoints/" + UUID.randomUUID();
    CountingJob job = new CountingJob(base, new Configuration(), backend, 2, 60_000, 5, 4_000, dir);
    JobClient client = job.start();
    job.finish();
    JobExecutionResult result = client.getJobExecutionResult().get(5, TimeUnit.MINUTES);

    job.verify(result);
    // Paced at 4000 records per split per checkpoint: at least 15 checkpoints on HDFS.
    assertThat(CountingJob.lastCompleted(client)).isGreaterThanOrEqualTo(15);
    FileSystem fs = FileSystems.get(URI.create(base));
    assertThat(fs.list(URI.create(base).getPath() + "/" + client.getJobID().value()))
        .contains("shared");
  }

  /** Counts how often it was opened, to prove that no task ran. */
  static final class OpenCounter extends RichMapFunction<Long, Long> {
    private static final long serialVersionUID = 1L;
    static final AtomicInteger OPENS = new AtomicInteger();

    @Override
    public void open(OpenContext openContext) {
      OPENS.incrementAndGet();
    }

    @Override
    public Long map(Long value) {
      return value;
    }
  }

  @Test
  void aJobWhoseNameNodeIsDownIsRefusedBeforeAnyTaskRuns() throws IOException {
    int port;
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = socket.getLocalPort();
    }
    String storage = "hdfs://127.0.0.1:" + port + "/weir/checkpoints";
    StreamEnvironment env = StreamEnvironment.create();
    env.enableCheckpointing(Duration.ofMillis(100));
    env.getCheckpointConfig().setCheckpointStorage(storage);
    env.getConfiguration().setString("weir.hadoop.ipc.client.connect.max.retries", "0");
    env.fromSequence(1, 10).map(new OpenCounter()).print();
    OpenCounter.OPENS.set(0);

    assertThatThrownBy(() -> env.execute("name-node-down"))
        .hasStackTraceContaining(storage)
        .hasStackTraceContaining("name node");
    assertThat(OpenCounter.OPENS.get()).isZero();
  }
}
