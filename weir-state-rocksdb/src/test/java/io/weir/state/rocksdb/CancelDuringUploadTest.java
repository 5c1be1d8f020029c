package io.weir.state.rocksdb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.weir.api.JobClient;
import io.weir.api.RestartStrategy;
import io.weir.api.StreamEnvironment;
import io.weir.api.config.Configuration;
import io.weir.api.functions.Collector;
import io.weir.api.functions.KeyedProcessFunction;
import io.weir.api.functions.OpenContext;
import io.weir.api.sink.DiscardingSink;
import io.weir.api.state.ValueState;
import io.weir.api.state.ValueStateDescriptor;
import io.weir.api.typeutils.TypeInformation;
import io.weir.api.typeutils.Types;
import io.weir.runtime.api.UnboundedSource;
import io.weir.runtime.storage.FileSystems;
import io.weir.runtime.storage.ForwardingFileSystem;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A job cancelled while a native full checkpoint is being copied leaves no files of that checkpoint
 * behind. The coordinator deletes the aborted checkpoint's directory at once; the copy goes on and
 * writes into it again. The cancelled task therefore lets its upload end before it closes RocksDB
 * (whose files the copy reads), so the copy completes and its late acknowledgement has the
 * coordinator delete the directory again. Closing RocksDB under the copy used to cut it short after
 * its first file, which then stayed behind.
 */
class CancelDuringUploadTest {

  // Fresh per run of the test (the file system reaches them statically, in this JVM).
  static volatile CountDownLatch held;
  static volatile CountDownLatch release;
  static volatile Thread uploader;

  /** Holds the first SST file of checkpoint 3 before creating it, until the test releases it. */
  static final class HoldingFileSystem extends ForwardingFileSystem {
    HoldingFileSystem() {
      super("holdfs");
    }

    @Override
    public OutputStream create(String path, boolean overwrite) throws IOException {
      if (path.contains("/chk-3/") && uploader == null) {
        uploader = Thread.currentThread();
        held.countDown();
        try {
          release.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IOException("interrupted while held", e);
        }
      }
      return super.create(path, overwrite);
    }
  }

  /** Keeps a 1 KiB value per key, so that every checkpoint flushes an SST file. */
  static final class Blobs extends KeyedProcessFunction<Long, Long, Long> {
    private static final long serialVersionUID = 1L;
    private transient ValueState<byte[]> blob;

    @Override
    @SuppressWarnings("unchecked")
    public void open(OpenContext openContext) {
      blob =
          getRuntimeContext()
              .getState(
                  new ValueStateDescriptor<>(
                      "blob", (TypeInformation<byte[]>) Types.PRIMITIVE_ARRAY(Types.BYTE)));
    }

    @Override
    public void processElement(Long value, Context ctx, Collector<Long> out) throws Exception {
      blob.update(new byte[1024]);
    }
  }

  @TempDir Path dir;

  private static Thread taskThread() {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(t -> t.getName().startsWith("Keyed Process"))
        .findFirst()
        .orElseThrow();
  }

  @AfterEach
  void unregister() {
    release.countDown();
    FileSystems.unregister("holdfs");
  }

  @Test
  void noFileOfTheAbortedCheckpointStaysBehind() throws Exception {
    held = new CountDownLatch(1);
    release = new CountDownLatch(1);
    uploader = null;
    FileSystems.register("holdfs", new HoldingFileSystem());
    Configuration conf = TestBackends.configuration("rocksdb-full", dir.resolve("local"));
    conf.set(RocksDBOptions.TRANSFER_THREADS, 1); // the SST files one after the other
    StreamEnvironment env = StreamEnvironment.create(conf);
    env.setParallelism(1);
    env.setRestartStrategy(RestartStrategy.none());
    env.enableCheckpointing(Duration.ofMillis(20));
    Path checkpoints = dir.resolve("checkpoints");
    env.getCheckpointConfig().setCheckpointStorage("holdfs://" + checkpoints.toAbsolutePath());
    env.fromSource(UnboundedSource.endless(0), "numbers")
        .keyBy(v -> v % 10_000, Types.LONG)
        .process(new Blobs())
        .returns(Types.LONG)
        .sinkTo(new DiscardingSink<>());
    JobClient client = env.executeAsync("cancel during upload");

    assertThat(held.await(60, TimeUnit.SECONDS)).as("checkpoint 3 reached the upload").isTrue();
    Thread task = taskThread();
    CompletableFuture<Void> cancelled = client.cancel(); // aborts checkpoint 3, deletes chk-3
    // Release the copy once the cancelled task has gone as far as it goes without it: ended (and
    // closed RocksDB), or parked until its upload ends.
    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> !task.isAlive() || task.getState() == Thread.State.WAITING);
    release.countDown();
    cancelled.get(60, TimeUnit.SECONDS);
    // The copy runs on the job's snapshot pool, which ends with the job: once its thread is gone
    // the copy has ended, completed or not.
    await().atMost(Duration.ofSeconds(60)).until(() -> !uploader.isAlive());

    try (Stream<Path> files = Files.walk(checkpoints)) {
      assertThat(files.filter(Files::isRegularFile).map(f -> checkpoints.relativize(f).toString()))
          .as("files left in the checkpoint directory")
          .isEmpty();
    } catch (UncheckedIOException e) {
      throw e.getCause();
    }
  }
}
