package io.weir.runtime.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.weir.api.StreamEnvironment;
import io.weir.api.functions.Collector;
import io.weir.api.functions.KeyedProcessFunction;
import io.weir.api.functions.OpenContext;
import io.weir.api.sink.DiscardingSink;
import io.weir.api.state.ValueState;
import io.weir.api.state.ValueStateDescriptor;
import io.weir.api.typeutils.Types;
import io.weir.runtime.storage.FileSystems;
import io.weir.runtime.storage.ForwardingFileSystem;
import io.weir.runtime.testing.matrix.TestMatrix;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The upload of a snapshot runs off the task thread: while the file system holds the first state
 * file open, the task whose state is being written keeps processing records.
 */
@TestMatrix
class AsyncSnapshotTest {

  static final AtomicLong PROCESSED = new AtomicLong();
  static final AtomicLong PROCESSED_DURING_UPLOAD = new AtomicLong(-1);
  static final AtomicBoolean ARMED = new AtomicBoolean();

  /** A local file system whose first state-file upload waits until processing has moved on. */
  static final class SlowFileSystem extends ForwardingFileSystem {
    SlowFileSystem() {
      super("slowfs");
    }

    @Override
    public OutputStream create(String path, boolean overwrite) throws IOException {
      OutputStream out = super.create(path, overwrite);
      if (path.contains("_metadata") || !ARMED.compareAndSet(true, false)) {
        return out;
      }
      return new FilterOutputStream(out) {
        @Override
        public void close() throws IOException {
          long atStart = PROCESSED.get();
          // The upload is stalled here; if snapshots were synchronous, the task would be
          // stalled too and the count could not move.
          await().atMost(Duration.ofSeconds(20)).until(() -> PROCESSED.get() > atStart + 100_000);
          PROCESSED_DURING_UPLOAD.set(PROCESSED.get() - atStart);
          super.close();
        }
      };
    }
  }

  /** Counts per key and counts every record it processes. */
  static final class Count extends KeyedProcessFunction<Long, Long, Long> {
    private static final long serialVersionUID = 1L;
    private transient ValueState<Long> count;

    @Override
    public void open(OpenContext openContext) {
      count = getRuntimeContext().getState(new ValueStateDescriptor<>("count", Types.LONG));
    }

    @Override
    public void processElement(Long value, Context ctx, Collector<Long> out) throws Exception {
      Long c = count.value();
      count.update(c == null ? 1 : c + 1);
      PROCESSED.incrementAndGet();
    }
  }

  @AfterEach
  void unregister() {
    FileSystems.unregister("slowfs");
  }

  @Test
  void recordsKeepFlowingWhileTheSnapshotIsUploaded(@TempDir Path dir) throws Exception {
    FileSystems.register("slowfs", new SlowFileSystem());
    PROCESSED.set(0);
    PROCESSED_DURING_UPLOAD.set(-1);
    ARMED.set(true);
    StreamEnvironment env = StreamEnvironment.create();
    env.setParallelism(1);
    env.enableCheckpointing(Duration.ofMillis(50));
    env.getCheckpointConfig().setCheckpointStorage("slowfs://" + dir.toAbsolutePath());
    env.fromSequence(1, 8_000_000)
        .keyBy(i -> i % 5000)
        .process(new Count())
        .returns(Types.LONG)
        .sinkTo(new DiscardingSink<>());

    env.execute("async-snapshot");

    assertThat(PROCESSED_DURING_UPLOAD.get()).isGreaterThan(100_000);
  }
}
