package io.weir.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.weir.api.functions.CheckpointListener;
import io.weir.api.functions.RichMapFunction;
import io.weir.api.source.datagen.DataGeneratorSource;
import io.weir.api.source.datagen.RateLimiterStrategy;
import io.weir.api.typeutils.Types;
import io.weir.api.util.CloseableIterator;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code executeAndCollect} on local execution: what a restart does to the elements returned, and
 * the back-pressure of a reader that stops reading. (The cluster's side: ClusterCollectIT.)
 */
@Timeout(60)
class ExecuteAndCollectTest {

  /** Elements the test has taken from the iterator; read by the failing map. */
  static final AtomicInteger RETURNED = new AtomicInteger();

  static final AtomicBoolean FAILED = new AtomicBoolean();

  /** Fails once, at the first element after the reader has taken one. */
  static final class FailOnceAfterAReturn extends RichMapFunction<Long, Long>
      implements CheckpointListener {
    @Override
    public Long map(Long value) {
      if (RETURNED.get() > 0 && FAILED.compareAndSet(false, true)) {
        throw new IllegalStateException("failing once at " + value);
      }
      return value;
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) {}
  }

  @Test
  void withCheckpointingARestartNeitherRepeatsNorLosesAReturnedElement() throws Exception {
    RETURNED.set(0);
    FAILED.set(false);
    StreamEnvironment env = StreamEnvironment.create();
    env.setParallelism(1);
    env.enableCheckpointing(Duration.ofMillis(30));
    env.setRestartStrategy(RestartStrategy.fixedDelay(3, Duration.ZERO));
    long n = 1500;
    DataStream<Long> numbers =
        env.fromSource(
                new DataGeneratorSource<>(
                    i -> i, n, RateLimiterStrategy.perSecond(5000), Types.LONG),
                "numbers")
            .map(new FailOnceAfterAReturn())
            .returns(Types.LONG);

    List<Long> collected = new ArrayList<>();
    try (CloseableIterator<Long> it = numbers.executeAndCollect("restart once")) {
      while (it.hasNext()) {
        collected.add(it.next());
        RETURNED.incrementAndGet();
      }
    }

    assertThat(FAILED).as("the job failed once while the reader read").isTrue();
    assertThat(collected).isEqualTo(LongStream.range(0, n).boxed().toList());
  }

  static final AtomicLong EMITTED = new AtomicLong();

  @Test
  void aReaderThatStopsReadingBackPressuresTheJob() throws Exception {
    EMITTED.set(0);
    StreamEnvironment env = StreamEnvironment.create();
    env.setParallelism(1);
    DataStream<Long> endless =
        env.fromSource(
                new DataGeneratorSource<>(
                    i -> {
                      EMITTED.incrementAndGet();
                      return i;
                    },
                    Long.MAX_VALUE,
                    Types.LONG),
                "endless")
            .map(x -> x)
            .returns(Types.LONG);
    try (CloseableIterator<Long> it = endless.executeAndCollect("unread")) {
      assertThat(it.next()).isZero();
      // The iterator holds CAPACITY unread elements, the sink CAPACITY unacknowledged ones,
      // and one more waits in the sink's write: then the source waits too.
      long bound = 2L * CollectSink.CAPACITY + 2;
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> EMITTED.get() >= 2L * CollectSink.CAPACITY);
      await()
          .during(Duration.ofMillis(300))
          .atMost(Duration.ofSeconds(5))
          .until(() -> EMITTED.get() <= bound);
      assertThat(it.next()).isEqualTo(1L);
    }
  }
}
