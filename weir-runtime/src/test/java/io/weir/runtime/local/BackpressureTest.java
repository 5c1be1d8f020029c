package io.weir.runtime.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.weir.api.JobClient;
import io.weir.api.StreamEnvironment;
import io.weir.api.config.Configuration;
import io.weir.api.config.CoreOptions;
import io.weir.api.functions.SinkFunction;
import io.weir.runtime.jobmaster.JobMaster;
import io.weir.runtime.network.InputChannel;
import io.weir.runtime.network.RecordWriter;
import io.weir.runtime.task.InputStreamTask;
import io.weir.runtime.task.StreamTask;
import io.weir.runtime.taskexecutor.TaskExecutor;
import io.weir.runtime.testing.matrix.MatrixCell;
import io.weir.runtime.testing.matrix.TestMatrix;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** A stalled sink stops a fast source with a bounded number of buffers in flight. */
// Reads the buffers of local execution's one in-process task executor; a mini cluster has several.
@TestMatrix(skip = {MatrixCell.HEAP_MINI_CLUSTER, MatrixCell.ROCKSDB_INCREMENTAL_MINI_CLUSTER})
class BackpressureTest {

  // Static, as the sink function is shipped by serialization; fresh for each run of the class.
  static volatile CountDownLatch release;
  static final AtomicLong SINK_RECORDS = new AtomicLong();

  @BeforeEach
  void reset() {
    release = new CountDownLatch(1);
    SINK_RECORDS.set(0);
  }

  @Test
  void aStalledSinkBoundsTheBuffersInFlight() throws Exception {
    int credits = 3;
    Configuration conf = new Configuration();
    conf.set(CoreOptions.BUFFERS_PER_CHANNEL, credits);
    StreamEnvironment env = StreamEnvironment.create(conf);
    env.setParallelism(2);
    env.fromSequence(1, Long.MAX_VALUE - 1)
        .map(i -> i * 3)
        .keyBy(i -> i % 1000)
        .addSink(
            (SinkFunction<Long>)
                (value, ctx) -> {
                  SINK_RECORDS.incrementAndGet();
                  release.await();
                });
    JobClient client = env.executeAsync("backpressure");
    try {
      List<StreamTask> tasks = ((TaskExecutor) ((JobMaster) client).taskExecutor()).runningTasks();
      List<StreamTask> sources = tasks.stream().filter(t -> t.getVertex().isSource()).toList();
      List<InputStreamTask> sinks =
          tasks.stream()
              .filter(InputStreamTask.class::isInstance)
              .map(InputStreamTask.class::cast)
              .toList();

      // Wait for the events "both sink subtasks hold a record" and "every source is
      // back-pressured": no writer can take a buffer.
      await()
          .atMost(Duration.ofSeconds(30))
          .until(
              () ->
                  SINK_RECORDS.get() == 2
                      && sources.stream()
                          .allMatch(
                              s -> s.getWriters().stream().noneMatch(RecordWriter::isAvailable)));

      for (InputStreamTask sink : sinks) {
        for (InputChannel channel : sink.getInputGate().getChannels()) {
          assertThat(channel.queuedBuffers()).isLessThanOrEqualTo(credits);
        }
      }
      for (StreamTask source : sources) {
        for (RecordWriter<?> writer : source.getWriters()) {
          // Credits per channel, plus the one being filled and the one being read.
          assertThat(writer.getBuffersCreated())
              .isLessThanOrEqualTo(writer.getNumberOfChannels() * (credits + 2));
        }
      }
      // The stalled sinks took nothing more.
      assertThat(SINK_RECORDS.get()).isEqualTo(2);
    } finally {
      release.countDown();
      client.cancel().get(10, TimeUnit.SECONDS);
    }
  }
}
