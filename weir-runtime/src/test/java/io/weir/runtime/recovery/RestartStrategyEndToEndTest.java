package io.weir.runtime.recovery;

import static io.weir.runtime.recovery.RecoveryTestSupport.chainMessages;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.weir.api.JobExecutionException;
import io.weir.api.RestartStrategy;
import io.weir.api.StreamEnvironment;
import io.weir.api.functions.OpenContext;
import io.weir.api.functions.RichMapFunction;
import io.weir.api.sink.DiscardingSink;
import io.weir.runtime.testing.matrix.TestMatrix;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Restart strategies decide, end to end, how many failures a job survives. */
@Timeout(60)
@TestMatrix
class RestartStrategyEndToEndTest {

  /** Fails on every element; counts the attempts that opened it and the failures it threw. */
  static final class AlwaysFailing extends RichMapFunction<Long, Long> {
    private static final long serialVersionUID = 1L;
    static final ConcurrentHashMap<String, AtomicInteger> OPENS = new ConcurrentHashMap<>();
    static final ConcurrentHashMap<String, AtomicInteger> FAILURES = new ConcurrentHashMap<>();

    private final String id = UUID.randomUUID().toString();

    AlwaysFailing() {
      OPENS.put(id, new AtomicInteger());
      FAILURES.put(id, new AtomicInteger());
    }

    @Override
    public void open(OpenContext openContext) {
      OPENS.get(id).incrementAndGet();
    }

    @Override
    public Long map(Long value) {
      int n = FAILURES.get(id).incrementAndGet();
      throw new IllegalStateException("boom #" + n);
    }
  }

  static Throwable runFailing(
      AlwaysFailing function, RestartStrategy strategy, boolean checkpoints) {
    StreamEnvironment env = StreamEnvironment.create();
    env.setParallelism(1);
    if (checkpoints) {
      env.enableCheckpointing(Duration.ofMillis(50));
    }
    env.setRestartStrategy(strategy);
    env.fromSequence(1, 10).map(function).name("always-failing").sinkTo(new DiscardingSink<>());
    return catchThrowable(() -> env.execute("always-failing"));
  }

  @Test
  void fixedDelayWithTwoAttemptsFailsTheJobAtTheThirdFailure() {
    AlwaysFailing function = new AlwaysFailing();

    Throwable error =
        runFailing(function, RestartStrategy.fixedDelay(2, Duration.ofMillis(10)), false);

    assertThat(error).isInstanceOf(JobExecutionException.class);
    assertThat(AlwaysFailing.OPENS.get(function.id).get()).isEqualTo(3);
    assertThat(AlwaysFailing.FAILURES.get(function.id).get()).isEqualTo(3);
    assertThat(error.getMessage())
        .contains("fixed-delay")
        .contains("will not restart")
        .contains("restart-strategy.fixed-delay.attempts");
    assertThat(chainMessages(error)).contains("boom #3").contains("always-failing");
  }

  @Test
  void noneFailsTheJobAtTheFirstFailure() {
    AlwaysFailing function = new AlwaysFailing();

    Throwable error = runFailing(function, RestartStrategy.none(), false);

    assertThat(error).isInstanceOf(JobExecutionException.class);
    assertThat(AlwaysFailing.OPENS.get(function.id).get()).isEqualTo(1);
    assertThat(AlwaysFailing.FAILURES.get(function.id).get()).isEqualTo(1);
    assertThat(chainMessages(error)).contains("boom #1").contains("always-failing");
  }

  @Test
  void noneFailsAtTheFirstFailureAlsoWithCheckpointing() {
    // With checkpointing on, the default would be exponential-delay (restart forever): an
    // explicit none must still win and say so.
    AlwaysFailing function = new AlwaysFailing();

    Throwable error = runFailing(function, RestartStrategy.none(), true);

    assertThat(error).isInstanceOf(JobExecutionException.class);
    assertThat(AlwaysFailing.OPENS.get(function.id).get()).isEqualTo(1);
    assertThat(error.getMessage()).contains("will not restart").containsIgnoringCase("none");
    // Chosen explicitly: no advice to enable checkpointing (it is on) or to pick a strategy.
    assertThat(error.getMessage())
        .contains("restart-strategy.type: none")
        .doesNotContain("enable checkpointing");
  }
}
