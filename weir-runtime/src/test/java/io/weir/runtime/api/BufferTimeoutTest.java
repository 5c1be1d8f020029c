package io.weir.runtime.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.weir.api.JobClient;
import io.weir.api.JobStatus;
import io.weir.api.StreamEnvironment;
import io.weir.api.config.Configuration;
import io.weir.api.config.CoreOptions;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A partly filled network buffer is sent as soon as its task has no input left (flush on idle, on
 * by default), and otherwise after the buffer timeout (100 ms by default), so a single record
 * reaches the sink while the job is still running and its source idle.
 */
@Timeout(30)
public class BufferTimeoutTest {

  @ParameterizedTest
  @ValueSource(ints = {1, 2})
  void aSingleRecordCrossesTheNetworkWhileTheJobRuns(int parallelism) throws Exception {
    StreamEnvironment env = StreamEnvironment.create(); // default buffer timeout
    env.setParallelism(parallelism);
    CollectSink<Long> sink = new CollectSink<>();
    env.fromSource(UnboundedSource.emitting(1, 1), "One Record")
        .setParallelism(1)
        .keyBy(x -> x)
        .map(x -> x + 1000)
        .sinkTo(sink);
    JobClient client = env.executeAsync("buffer-timeout");
    try {
      await()
          .atMost(Duration.ofSeconds(5))
          .pollInterval(Duration.ofMillis(5))
          .until(() -> sink.size() > 0 || client.getJobExecutionResult().isDone());
      assertThat(sink.results()).containsExactly(1000L);
      assertThat(client.getJobExecutionResult()).isNotDone();
      assertThat(client.getJobStatus().get()).isEqualTo(JobStatus.RUNNING);
    } finally {
      client.cancel().get(10, TimeUnit.SECONDS);
    }
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 3})
  void aSingleRecordCrossesTwoNetworkHopsWhileTheJobRuns(int parallelism) throws Exception {
    StreamEnvironment env = StreamEnvironment.create();
    env.setParallelism(parallelism);
    CollectSink<Long> sink = new CollectSink<>();
    env.fromSource(UnboundedSource.emitting(1, 1), "One Record")
        .setParallelism(1)
        .keyBy(x -> x)
        .map(x -> x + 1)
        .rebalance()
        .map(x -> x * 2)
        .setParallelism(2)
        .sinkTo(sink);
    JobClient client = env.executeAsync("buffer-timeout-two-hops");
    try {
      await()
          .atMost(Duration.ofSeconds(5))
          .pollInterval(Duration.ofMillis(5))
          .until(() -> sink.size() > 0 || client.getJobExecutionResult().isDone());
      assertThat(sink.results()).containsExactly(2L);
      assertThat(client.getJobExecutionResult()).isNotDone();
    } finally {
      client.cancel().get(10, TimeUnit.SECONDS);
    }
  }

  @ParameterizedTest
  @ValueSource(ints = {0, 20})
  void explicitBufferTimeoutsAlsoDeliver(int timeoutMillis) throws Exception {
    StreamEnvironment env = StreamEnvironment.create();
    env.setParallelism(2);
    env.setBufferTimeout(Duration.ofMillis(timeoutMillis));
    CollectSink<Long> sink = new CollectSink<>();
    // Two source subtasks, 3 records each, then idle: 0, 2, 4 and 1, 3, 5.
    env.fromSource(UnboundedSource.emitting(3, 1), "Few Records")
        .rebalance()
        .map(x -> x * 10)
        .sinkTo(sink);
    JobClient client = env.executeAsync("explicit-buffer-timeout");
    try {
      await()
          .atMost(Duration.ofSeconds(5))
          .pollInterval(Duration.ofMillis(5))
          .until(() -> sink.size() >= 6 || client.getJobExecutionResult().isDone());
      assertThat(sink.results()).containsExactlyInAnyOrder(0L, 10L, 20L, 30L, 40L, 50L);
      assertThat(client.getJobExecutionResult()).isNotDone();
    } finally {
      client.cancel().get(10, TimeUnit.SECONDS);
    }
  }

  @Test
  void anIdleTaskSendsItsPartlyFilledBuffersWithoutWaitingForTheTimeout() throws Exception {
    StreamEnvironment env = StreamEnvironment.create();
    env.setParallelism(2);
    env.setBufferTimeout(Duration.ofHours(1)); // only flushing on idle can deliver in time
    CollectSink<Long> sink = new CollectSink<>();
    env.fromSource(UnboundedSource.emitting(2, 1), "Few Records")
        .keyBy(x -> x)
        .map(x -> x + 1)
        .rebalance()
        .map(x -> x * 10)
        .sinkTo(sink);
    JobClient client = env.executeAsync("flush-on-idle");
    try {
      await()
          .atMost(Duration.ofSeconds(5))
          .pollInterval(Duration.ofMillis(5))
          .until(() -> sink.size() >= 4 || client.getJobExecutionResult().isDone());
      assertThat(sink.results()).containsExactlyInAnyOrder(10L, 20L, 30L, 40L);
      assertThat(client.getJobExecutionResult()).isNotDone();
    } finally {
      client.cancel().get(10, TimeUnit.SECONDS);
    }
  }

  @Test
  void withoutFlushOnIdleTheBufferTimeoutDelivers() throws Exception {
    StreamEnvironment env =
        StreamEnvironment.create(new Configuration().set(CoreOptions.BUFFER_FLUSH_ON_IDLE, false));
    env.setParallelism(2);
    env.setBufferTimeout(Duration.ofMillis(20));
    CollectSink<Long> sink = new CollectSink<>();
    env.fromSource(UnboundedSource.emitting(3, 1), "Few Records")
        .rebalance()
        .map(x -> x * 10)
        .sinkTo(sink);
    JobClient client = env.executeAsync("no-flush-on-idle");
    try {
      await()
          .atMost(Duration.ofSeconds(5))
          .pollInterval(Duration.ofMillis(5))
          .until(() -> sink.size() >= 6 || client.getJobExecutionResult().isDone());
      assertThat(sink.results()).containsExactlyInAnyOrder(0L, 10L, 20L, 30L, 40L, 50L);
      assertThat(client.getJobExecutionResult()).isNotDone();
    } finally {
      client.cancel().get(10, TimeUnit.SECONDS);
    }
  }
}
