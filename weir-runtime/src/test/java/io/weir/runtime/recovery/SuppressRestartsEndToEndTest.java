package io.weir.runtime.recovery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.weir.api.JobExecutionException;
import io.weir.api.RestartStrategy;
import io.weir.api.StreamEnvironment;
import io.weir.api.SuppressRestartsException;
import io.weir.api.functions.OpenContext;
import io.weir.api.functions.RichMapFunction;
import io.weir.api.sink.DiscardingSink;
import io.weir.runtime.testing.matrix.TestMatrix;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A failure caused by a {@link SuppressRestartsException} fails the job whatever the strategy. */
@Timeout(60)
@TestMatrix
class SuppressRestartsEndToEndTest {

  static final AtomicInteger OPENS = new AtomicInteger();

  /** Fails on the first element with a cause that suppresses restarts. */
  static final class Unrecoverable extends RichMapFunction<Long, Long> {
    private static final long serialVersionUID = 1L;

    @Override
    public void open(OpenContext openContext) {
      OPENS.incrementAndGet();
    }

    @Override
    public Long map(Long value) {
      throw new IllegalStateException(
          "wrapped", new SuppressRestartsException("a restart cannot cure this", null));
    }
  }

  @Test
  void theJobFailsAtTheFirstSuchFailureDespiteRestartAttemptsLeft() {
    OPENS.set(0);
    StreamEnvironment env = StreamEnvironment.create();
    env.setParallelism(1);
    env.enableCheckpointing(Duration.ofMillis(50));
    env.setRestartStrategy(RestartStrategy.fixedDelay(5, Duration.ZERO));
    env.fromSequence(1, 10).map(new Unrecoverable()).sinkTo(new DiscardingSink<>());

    Throwable error = catchThrowable(() -> env.execute("unrecoverable"));

    assertThat(error).isInstanceOf(JobExecutionException.class);
    assertThat(RecoveryTestSupport.chainMessages(error)).contains("a restart cannot cure this");
    assertThat(OPENS).hasValue(1);
  }
}
