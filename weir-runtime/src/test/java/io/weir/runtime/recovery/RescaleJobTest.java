package io.weir.runtime.recovery;

import static io.weir.runtime.recovery.RecoveryTestSupport.WAIT;
import static io.weir.runtime.recovery.RecoveryTestSupport.awaitCoveringCheckpoint;
import static io.weir.runtime.recovery.RecoveryTestSupport.expectedCounts;
import static io.weir.runtime.recovery.RecoveryTestSupport.finalCounts;
import static io.weir.runtime.recovery.RecoveryTestSupport.jobDir;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.weir.api.JobClient;
import io.weir.api.RestartStrategy;
import io.weir.api.StreamEnvironment;
import io.weir.api.config.Configuration;
import io.weir.api.config.CoreOptions;
import io.weir.api.eventtime.WatermarkStrategy;
import io.weir.api.typeutils.Types;
import io.weir.api.windowing.assigners.TumblingEventTimeWindows;
import io.weir.runtime.api.CollectSink;
import io.weir.runtime.api.UnboundedSource;
import io.weir.runtime.recovery.RecoveryTestSupport.Count;
import io.weir.runtime.recovery.RecoveryTestSupport.CounterProbe;
import io.weir.runtime.recovery.RecoveryTestSupport.CountingSource;
import io.weir.runtime.recovery.RecoveryTestSupport.KeyedCounter;
import io.weir.runtime.recovery.RecoveryTestSupport.OpenTracker;
import io.weir.runtime.testing.matrix.TestMatrix;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Jobs with a {@code rescale()} edge (2 source subtasks to 3 consumers, connected pointwise) in
 * every cell of the test matrix. Under checkpoints, aligned and unaligned, one fails after a
 * checkpoint and restores from it: barriers align over each consumer's own producers, the channel
 * state recorded per channel is replayed into the same channels, and every key's final count is
 * exact. Event time crosses the edge: each consumer's watermark comes from its own producers.
 */
@Timeout(90)
@TestMatrix
class RescaleJobTest {

  static final long FIRST = 300;
  static final long LIMIT = 1_000;
  static final int KEYS = 7;

  @TempDir Path checkpoints;

  @ParameterizedTest(name = "unaligned {0}")
  @ValueSource(booleans = {false, true})
  void aRescaledJobRestoresFromACheckpointWithExactCounts(boolean unaligned) throws Exception {
    StreamEnvironment env = StreamEnvironment.create();
    env.setParallelism(3);
    env.setBufferTimeout(Duration.ZERO);
    env.enableCheckpointing(Duration.ofMillis(20));
    env.getCheckpointConfig().setCheckpointStorage(checkpoints.toUri().toString());
    if (unaligned) {
      env.getCheckpointConfig().enableUnalignedCheckpoints();
    }
    env.setRestartStrategy(RestartStrategy.fixedDelay(1, Duration.ZERO));
    CountingSource source = CountingSource.gated(LIMIT);
    source.control().allow(FIRST);
    CounterProbe probe = new CounterProbe();
    CollectSink<Count> sink = new CollectSink<>();
    env.fromSource(source, "numbers", Types.LONG)
        .setParallelism(2)
        .uid("source")
        .rescale()
        .map(new OpenTracker())
        .uid("rescaled")
        .keyBy(v -> v % KEYS, Types.LONG)
        .process(new KeyedCounter(probe))
        .uid("counter")
        .sinkTo(sink);
    JobClient client = env.executeAsync("rescale-recovery");

    awaitCoveringCheckpoint(jobDir(checkpoints, client), source, 2 * FIRST);
    probe.armFailure();
    source.control().allow(LIMIT);
    assertThat(probe.blocked.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
    probe.release.countDown();
    source.control().finish();
    client.getJobExecutionResult().get(60, TimeUnit.SECONDS);

    assertThat(sink.results()).as("a second attempt counted").anyMatch(c -> c.attempt() > 0);
    assertThat(finalCounts(sink.results()))
        .as("each key counted every value once")
        .isEqualTo(expectedCounts(2 * LIMIT, KEYS));
  }

  @Test
  void watermarksCrossTheRescaleEdgeToEveryConsumer() throws Exception {
    Configuration conf = Configuration.fromSystemProperties();
    conf.set(CoreOptions.AUTO_WATERMARK_INTERVAL, Duration.ofMillis(5));
    StreamEnvironment env = StreamEnvironment.create(conf);
    env.setParallelism(3);
    CollectSink<Long> sink = new CollectSink<>();
    // Subtask i of 2 emits i, i + 2, ... below 200 with its value as timestamp, then idles (not
    // ends): only watermarks, not the end of input, can fire the windows.
    env.fromSource(
            UnboundedSource.emitting(100, 0),
            WatermarkStrategy.<Long>forMonotonousTimestamps().withTimestampAssigner((v, ts) -> v),
            "numbers",
            Types.LONG)
        .setParallelism(2)
        .rescale()
        .map(v -> v)
        .returns(Types.LONG)
        .keyBy(v -> v % 3, Types.LONG)
        .window(TumblingEventTimeWindows.of(Duration.ofMillis(10)))
        .reduce(Long::sum)
        .sinkTo(sink);
    // The watermarks stop at 197 and 198: windows [0, 10) .. [180, 190) fire, [190, 200) never.
    List<Long> expected = new ArrayList<>();
    for (long start = 0; start < 190; start += 10) {
      for (long key = 0; key < 3; key++) {
        long sum = 0;
        for (long v = start; v < start + 10; v++) {
          sum += v % 3 == key ? v : 0;
        }
        expected.add(sum);
      }
    }
    JobClient client = env.executeAsync("rescale-watermarks");
    try {
      await().atMost(WAIT).until(() -> sink.size() >= expected.size());
      assertThat(sink.results()).containsExactlyInAnyOrderElementsOf(expected);
    } finally {
      client.cancel().get(30, TimeUnit.SECONDS);
    }
  }
}
