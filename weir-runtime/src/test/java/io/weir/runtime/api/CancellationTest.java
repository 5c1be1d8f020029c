package io.weir.runtime.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.weir.api.JobClient;
import io.weir.api.JobExecutionException;
import io.weir.api.JobStatus;
import io.weir.api.StreamEnvironment;
import io.weir.api.functions.MapFunction;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** {@code executeAsync} and {@code cancel()} on unbounded jobs. */
@Timeout(30)
public class CancellationTest {

  /**
   * @param intervalMillis 0: a busy source that keeps the network full (back-pressure); above 0: a
   *     source that is idle most of the time
   */
  @ParameterizedTest
  @ValueSource(ints = {0, 1})
  void cancelStopsAnUnboundedJobWithinOneSecond(int intervalMillis) throws Exception {
    StreamEnvironment env = StreamEnvironment.create();
    env.setParallelism(2);
    CollectSink<Long> sink = new CollectSink<>();
    env.fromSource(UnboundedSource.endless(intervalMillis), "Endless")
        .keyBy(x -> x % 10)
        .map(x -> x + 1)
        .filter(x -> x <= 500) // the sink keeps at most 500 records
        .sinkTo(sink);
    JobClient client = env.executeAsync("cancel-me");
    assertThat(client.getJobID()).isNotNull();

    // The job really runs: records reach the sink.
    await()
        .atMost(Duration.ofSeconds(10))
        .pollInterval(Duration.ofMillis(5))
        .until(() -> sink.size() > 0 || client.getJobExecutionResult().isDone());
    assertThat(client.getJobExecutionResult()).isNotDone();
    assertThat(client.getJobStatus().get()).isEqualTo(JobStatus.RUNNING);

    long start = System.nanoTime();
    client.cancel().get(5, TimeUnit.SECONDS);
    long elapsedNanos = System.nanoTime() - start;

    assertThat(Duration.ofNanos(elapsedNanos)).isLessThan(Duration.ofSeconds(1));
    assertThat(client.getJobStatus().get()).isEqualTo(JobStatus.CANCELED);
    assertThat(client.getJobExecutionResult()).isCompletedExceptionally();
    assertThatThrownBy(() -> client.getJobExecutionResult().get(5, TimeUnit.SECONDS))
        .isInstanceOf(ExecutionException.class)
        .cause()
        .isInstanceOf(JobExecutionException.class)
        .hasMessageContaining("cancel");
  }

  /** Spins for about 20 microseconds per record: a slow consumer that back-pressures. */
  public static final class SlowMap implements MapFunction<Long, Long> {
    private static final long serialVersionUID = 1L;
    static final ConcurrentHashMap<String, AtomicLong> PROCESSED = new ConcurrentHashMap<>();
    private final String id = UUID.randomUUID().toString();

    SlowMap() {
      PROCESSED.put(id, new AtomicLong());
    }

    long processed() {
      return PROCESSED.get(id).get();
    }

    @Override
    public Long map(Long value) {
      PROCESSED.get(id).incrementAndGet();
      long until = System.nanoTime() + 20_000;
      long x = value;
      while (System.nanoTime() < until) {
        x = x * 31 + 7;
      }
      return x == 42 ? value + 1 : value; // keep the loop from being optimized away
    }
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 4})
  void cancelStopsABackPressuredJobWithinOneSecond(int parallelism) throws Exception {
    StreamEnvironment env = StreamEnvironment.create();
    env.setParallelism(parallelism);
    CollectSink<Long> sink = new CollectSink<>();
    SlowMap slow = new SlowMap();
    env.fromSource(UnboundedSource.endless(0), "Endless")
        .rebalance()
        .map(slow)
        .filter(x -> x < 100)
        .sinkTo(sink);
    JobClient client = env.executeAsync("cancel-back-pressured");
    // Several buffers' worth processed at ~20 us a record: the source, far faster, has long been
    // waiting for credits.
    await()
        .atMost(Duration.ofSeconds(10))
        .pollInterval(Duration.ofMillis(5))
        .until(() -> slow.processed() > 5_000 || client.getJobExecutionResult().isDone());
    assertThat(client.getJobExecutionResult()).isNotDone();

    long start = System.nanoTime();
    client.cancel().get(5, TimeUnit.SECONDS);
    Duration elapsed = Duration.ofNanos(System.nanoTime() - start);

    assertThat(elapsed).isLessThan(Duration.ofSeconds(1));
    assertThat(client.getJobStatus().get()).isEqualTo(JobStatus.CANCELED);
    assertThat(client.getJobExecutionResult()).isCompletedExceptionally();
  }

  /** Blocks (interruptibly, like a blocking client call) on its first element. */
  public static final class BlockingMap implements MapFunction<Long, Long> {
    private static final long serialVersionUID = 1L;
    static final ConcurrentHashMap<String, CountDownLatch> BLOCKED = new ConcurrentHashMap<>();
    private final String id;

    BlockingMap(String id) {
      this.id = id;
      BLOCKED.put(id, new CountDownLatch(1));
    }

    @Override
    public Long map(Long value) throws InterruptedException {
      BLOCKED.get(id).countDown();
      new CountDownLatch(1).await(); // until interrupted
      return value;
    }
  }

  @Test
  void cancelInterruptsAUserFunctionThatBlocks() throws Exception {
    StreamEnvironment env = StreamEnvironment.create();
    env.setParallelism(2);
    String id = UUID.randomUUID().toString();
    env.fromSource(UnboundedSource.endless(1), "Endless")
        .keyBy(x -> x % 4)
        .map(new BlockingMap(id))
        .sinkTo(new CollectSink<>());
    JobClient client = env.executeAsync("cancel-blocked");
    assertThat(BlockingMap.BLOCKED.get(id).await(10, TimeUnit.SECONDS)).isTrue();

    long start = System.nanoTime();
    client.cancel().get(5, TimeUnit.SECONDS);
    Duration elapsed = Duration.ofNanos(System.nanoTime() - start);

    assertThat(elapsed).isLessThan(Duration.ofSeconds(1));
    assertThat(client.getJobStatus().get()).isEqualTo(JobStatus.CANCELED);
    assertThat(client.getJobExecutionResult()).isCompletedExceptionally();
  }

  @Test
  void cancelTwiceAndCancelAfterTheEndAreHarmless() throws Exception {
    StreamEnvironment env = StreamEnvironment.create();
    env.setParallelism(1);
    CollectSink<Long> sink = new CollectSink<>();
    env.fromSource(UnboundedSource.emitting(1, 1), "One").sinkTo(sink);
    JobClient client = env.executeAsync("cancel-twice");
    await().atMost(Duration.ofSeconds(5)).until(() -> sink.size() == 1);

    var first = client.cancel();
    var second = client.cancel();
    first.get(5, TimeUnit.SECONDS);
    second.get(5, TimeUnit.SECONDS);
    client.cancel().get(5, TimeUnit.SECONDS);
    assertThat(client.getJobStatus().get()).isEqualTo(JobStatus.CANCELED);
    assertThat(client.getJobExecutionResult()).isCompletedExceptionally();
  }

  @Test
  void cancelOfAFinishedJobKeepsItFinished() throws Exception {
    StreamEnvironment env = StreamEnvironment.create();
    env.setParallelism(2);
    CollectSink<Long> sink = new CollectSink<>();
    env.fromSequence(1, 10).sinkTo(sink);
    JobClient client = env.executeAsync("finished");
    var result = client.getJobExecutionResult().get(10, TimeUnit.SECONDS);
    client.cancel().get(5, TimeUnit.SECONDS);

    assertThat(result.getJobID()).isEqualTo(client.getJobID());
    assertThat(client.getJobStatus().get()).isEqualTo(JobStatus.FINISHED);
    assertThat(sink.results()).hasSize(10);
  }
}
