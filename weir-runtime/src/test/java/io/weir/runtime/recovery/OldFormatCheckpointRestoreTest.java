package io.weir.runtime.recovery;

import static io.weir.runtime.recovery.RecoveryTestSupport.WAIT;
import static io.weir.runtime.recovery.RecoveryTestSupport.copyTree;
import static io.weir.runtime.recovery.RecoveryTestSupport.expectedCounts;
import static io.weir.runtime.recovery.RecoveryTestSupport.finalCounts;
import static io.weir.runtime.recovery.RecoveryTestSupport.jobDir;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.weir.api.CheckpointStatistics;
import io.weir.api.ExternalizedCheckpointRetention;
import io.weir.api.JobClient;
import io.weir.api.JobExecutionResult;
import io.weir.api.RestartStrategy;
import io.weir.api.StreamEnvironment;
import io.weir.api.config.CheckpointingOptions;
import io.weir.api.config.CoreOptions;
import io.weir.api.config.MemorySize;
import io.weir.api.eventtime.WatermarkStrategy;
import io.weir.api.functions.Collector;
import io.weir.api.functions.KeyedProcessFunction;
import io.weir.api.functions.OpenContext;
import io.weir.api.source.NumberSequenceSource;
import io.weir.api.state.ValueState;
import io.weir.api.state.ValueStateDescriptor;
import io.weir.api.typeutils.Types;
import io.weir.runtime.api.CollectSink;
import io.weir.runtime.checkpoint.OperatorSubtaskState;
import io.weir.runtime.recovery.RecoveryTestSupport.Count;
import io.weir.runtime.storage.MetadataSerializer;
import java.net.URISyntaxException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;

/**
 * Checkpoints written by an older Weir restore. The fixture under {@code
 * src/test/resources/checkpoints/metadata-v3-unaligned} is an unaligned checkpoint with in-flight
 * data and a source's splits with split watermarks, written in metadata format 3 (where both were
 * operator list states named {@code _channel_*} and {@code _source_splits}) by {@link
 * #writeFixture} on Weir af67bdf: a number sequence with event time into a slow keyed count at
 * parallelism 2, cancelled with the checkpoint retained. (Run today, {@link #writeFixture} writes
 * the current format.)
 */
@Timeout(120)
class OldFormatCheckpointRestoreTest {

  static final long TOTAL = 200_000;
  static final int KEYS = 7;
  static final String FIXTURE = "checkpoints/metadata-v3-unaligned";

  @TempDir Path checkpoints;
  @TempDir Path copy;
  @TempDir Path resumedCheckpoints;

  /** Counts per key in a {@code ValueState<Long>}, spending {@code nanosPerRecord} per record. */
  static final class SlowCounter extends KeyedProcessFunction<Long, Long, Count> {
    private static final long serialVersionUID = 1L;

    private final long nanosPerRecord;
    private transient ValueState<Long> count;

    SlowCounter(long nanosPerRecord) {
      this.nanosPerRecord = nanosPerRecord;
    }

    @Override
    public void open(OpenContext openContext) {
      count = getRuntimeContext().getState(new ValueStateDescriptor<>("count", Types.LONG));
    }

    @Override
    public void processElement(Long value, Context ctx, Collector<Count> out) throws Exception {
      if (nanosPerRecord > 0) {
        LockSupport.parkNanos(nanosPerRecord);
      }
      Long old = count.value();
      long n = (old == null ? 0 : old) + 1;
      count.update(n);
      out.collect(new Count(ctx.getCurrentKey(), n, getRuntimeContext().getAttemptNumber()));
    }
  }

  private static StreamEnvironment environment(Path storage) {
    StreamEnvironment env = StreamEnvironment.create();
    env.setParallelism(2);
    env.setRestartStrategy(RestartStrategy.none());
    env.enableCheckpointing(Duration.ofMillis(100));
    env.getCheckpointConfig()
        .enableUnalignedCheckpoints()
        .setCheckpointStorage(storage.toUri().toString())
        .setExternalizedCheckpointRetention(ExternalizedCheckpointRetention.RETAIN_ON_CANCELLATION);
    env.getConfiguration().set(CoreOptions.BUFFERS_PER_CHANNEL, 2);
    env.getConfiguration().set(CoreOptions.MAX_BUFFERS_PER_CHANNEL, 2);
    env.getConfiguration().set(CoreOptions.NETWORK_BUFFER_SIZE, new MemorySize(1024));
    return env;
  }

  private static void pipeline(
      StreamEnvironment env, long nanosPerRecord, CollectSink<Count> sink) {
    env.fromSource(
            new NumberSequenceSource(0, TOTAL - 1),
            WatermarkStrategy.<Long>forMonotonousTimestamps().withTimestampAssigner((v, ts) -> v),
            "numbers")
        .uid("numbers")
        .keyBy(v -> v % KEYS, Types.LONG)
        .process(new SlowCounter(nanosPerRecord))
        .uid("counter")
        .name("counter")
        .sinkTo(sink);
  }

  /**
   * Writes the fixture into the directory named by {@code -Dweir.fixture.out}: the job directory of
   * a cancelled job, holding its one retained checkpoint, which has in-flight data.
   */
  @Test
  @EnabledIfSystemProperty(named = "weir.fixture.out", matches = ".+")
  void writeFixture() throws Exception {
    StreamEnvironment env = environment(checkpoints);
    pipeline(env, 200_000, new CollectSink<>());
    JobClient client = env.executeAsync("old-format-fixture");
    try {
      await()
          .atMost(WAIT)
          .until(
              () ->
                  client.getCheckpointStatistics().stream()
                          .filter(c -> c.status() == CheckpointStatistics.Status.COMPLETED)
                          .filter(c -> c.unaligned() && c.channelStateBytes() > 0)
                          .count()
                      >= 2);
    } finally {
      client.cancel().get(30, TimeUnit.SECONDS);
    }
    Path jobDir = jobDir(checkpoints, client);
    Path out = Paths.get(System.getProperty("weir.fixture.out"));
    copyTree(jobDir, out);
    List<CheckpointStatistics> stats = client.getCheckpointStatistics();
    try (Stream<Path> dirs = Files.list(out)) {
      for (Path dir : dirs.toList()) {
        System.out.println("fixture " + dir + ": " + stats);
      }
    }
  }

  @Test
  void restoresAnUnalignedCheckpointWrittenInFormat3() throws Exception {
    copyTree(fixture(), copy);
    Path checkpoint;
    try (Stream<Path> dirs = Files.list(copy)) {
      checkpoint =
          dirs.filter(p -> p.getFileName().toString().startsWith("chk-"))
              .max(Comparator.naturalOrder())
              .orElseThrow();
    }
    byte[] metadata = Files.readAllBytes(checkpoint.resolve("_metadata"));
    assertThat(ByteBuffer.wrap(metadata, 4, 4).getInt()).as("format version").isEqualTo(3);
    long id = Long.parseLong(checkpoint.getFileName().toString().substring("chk-".length()));
    List<OperatorSubtaskState> subtasks =
        MetadataSerializer.deserialize(metadata, checkpoint.toString()).operators().stream()
            .flatMap(op -> op.subtasks().stream())
            .toList();
    assertThat(subtasks)
        .as("its named lists read as typed in-flight data and splits")
        .anyMatch(s -> !s.inputChannelState().isEmpty())
        .anyMatch(s -> !s.resultSubpartitionState().isEmpty())
        .anyMatch(s -> s.splits() != null)
        .noneMatch(
            s ->
                s.operator() != null
                    && s.operator().states().keySet().stream()
                        .anyMatch(name -> name.startsWith("_") && !name.startsWith("_timers")));

    StreamEnvironment env = environment(resumedCheckpoints);
    env.getConfiguration().set(CheckpointingOptions.SAVEPOINT_PATH, checkpoint.toString());
    CollectSink<Count> sink = new CollectSink<>();
    pipeline(env, 0, sink);
    JobExecutionResult result = env.execute("resumed-from-format-3");

    assertThat(result.metrics()).containsEntry("job.lastRestoredCheckpoint", id);
    assertThat(finalCounts(sink.results()))
        .as("every record counted exactly once: the in-flight data was replayed")
        .isEqualTo(expectedCounts(TOTAL, KEYS));
  }

  static Path fixture() throws URISyntaxException {
    return Paths.get(
        OldFormatCheckpointRestoreTest.class.getClassLoader().getResource(FIXTURE).toURI());
  }
}
