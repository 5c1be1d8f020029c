package io.weir.runtime.recovery;

import static io.weir.runtime.recovery.RecoveryTestSupport.awaitCoveringCheckpoint;
import static io.weir.runtime.recovery.RecoveryTestSupport.jobDir;
import static org.assertj.core.api.Assertions.assertThat;

import io.weir.api.CheckpointStatistics;
import io.weir.api.DataStream;
import io.weir.api.JobClient;
import io.weir.api.JobExecutionResult;
import io.weir.api.OutputTag;
import io.weir.api.RestartStrategy;
import io.weir.api.SingleOutputStreamOperator;
import io.weir.api.StreamEnvironment;
import io.weir.api.config.Configuration;
import io.weir.api.config.CoreOptions;
import io.weir.api.eventtime.Watermark;
import io.weir.api.eventtime.WatermarkGenerator;
import io.weir.api.eventtime.WatermarkOutput;
import io.weir.api.eventtime.WatermarkStrategy;
import io.weir.api.typeutils.Types;
import io.weir.api.windowing.assigners.EventTimeSessionWindows;
import io.weir.api.windowing.assigners.SlidingEventTimeWindows;
import io.weir.api.windowing.assigners.TumblingEventTimeWindows;
import io.weir.api.windowing.assigners.WindowAssigner;
import io.weir.api.windowing.windows.TimeWindow;
import io.weir.runtime.jobmaster.JobMaster;
import io.weir.runtime.jobmaster.SubtaskStatus;
import io.weir.runtime.recovery.RecoveryTestSupport.CountingSource;
import io.weir.runtime.recovery.WindowRecoveryTest.Count;
import io.weir.runtime.recovery.WindowRecoveryTest.ExactlyOnceSink;
import io.weir.runtime.recovery.WindowRecoveryTest.FailAfter;
import io.weir.runtime.testing.matrix.MatrixCell;
import io.weir.runtime.testing.matrix.TestMatrix;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Event time across restores from unaligned checkpoints. Out-of-order events, some of them far
 * behind the watermark, go into tumbling, sliding and session windows with allowed lateness and
 * late-data side outputs; the windows are slower than the source, so every checkpoint's barriers
 * overtake buffers with watermarks between them. The job fails at random records (seeded; the seed
 * is in every message) and restores from those checkpoints; its committed output — window results
 * and late events — must equal the uninterrupted run's: each restored window operator classifies
 * every replayed record as on time or late exactly as before, because the checkpoint kept where
 * event time stood at the snapshot and the watermarks in place among the recorded buffers.
 *
 * <p>The run is deterministic without failures: one source subtask, watermarks emitted on events (a
 * function of the event alone, no periodic emission), and each window subtask reads one channel.
 * Runs on the heap here and on RocksDB in weir-state-rocksdb, with full checkpoints and a write
 * cache of one entry, so every window and timer access goes to RocksDB. Not in the incremental
 * cell: what this test is about (event time at the cut, watermarks among the in-flight buffers)
 * does not depend on how keyed state is uploaded, which the incremental cells of the window harness
 * and the keyed-state suites cover, and it cost 26 s of the suite there.
 */
@Timeout(180)
@TestMatrix(skip = MatrixCell.ROCKSDB_INCREMENTAL)
class UnalignedEventTimeRecoveryTest {

  private static final int KEYS = 7;
  private static final long EVENTS = 24_000;
  private static final int STAGES = 6;

  /**
   * 2 ms apart; one in 16 events is 150-550 ms behind, beyond bound and lateness; the rest 0-39.
   */
  static long eventTime(long v) {
    long h = (v * 0x9E3779B97F4A7C15L) >>> 40;
    return v * 2 + 1_000 - (h % 16 == 0 ? 150 + h % 400 : h % 40);
  }

  /** Every 8th event moves event time to 50 ms behind its regular position: no other state. */
  static final class EveryEighth implements WatermarkGenerator<Long> {
    @Override
    public void onEvent(Long v, long timestamp, WatermarkOutput output) {
      if (v % 8 == 7) {
        output.emitWatermark(new Watermark(v * 2 + 1_000 - 50));
      }
    }

    @Override
    public void onPeriodicEmit(WatermarkOutput output) {}
  }

  /**
   * Counts elements with a few microseconds of work for each, so that the windows hold the source
   * back and the channels into them are full when a checkpoint's barriers overtake their buffers.
   */
  static final class SlowCount extends Count {
    private static final long serialVersionUID = 1L;

    @Override
    public Long add(Long value, Long accumulator) {
      long x = value;
      for (int i = 0; i < 3_000; i++) {
        x = x * 6364136223846793005L + 1442695040888963407L;
      }
      return super.add(value, accumulator) + (x == 42 ? 0 : 0);
    }
  }

  @TempDir Path checkpoints;

  @Test
  void windowsAndLateEventsAfterUnalignedRestoresEqualTheUninterruptedRun() throws Exception {
    List<String> uninterrupted = run(false, 0);
    assertThat(uninterrupted)
        .as("the job has late events and window results of every kind")
        .anyMatch(line -> line.startsWith("late tumbling"))
        .anyMatch(line -> line.startsWith("late sliding"))
        .anyMatch(line -> line.startsWith("late session"))
        .anyMatch(line -> line.startsWith("tumbling"))
        .anyMatch(line -> line.startsWith("sliding"))
        .anyMatch(line -> line.startsWith("session"));

    long seed = new Random().nextLong();
    List<String> restored = run(true, seed);
    assertThat(restored)
        .as(
            "committed output after %d failures with unaligned checkpoints (seed %d)",
            STAGES - 1, seed)
        .containsExactlyInAnyOrderElementsOf(uninterrupted);
  }

  /**
   * Runs the job in {@link #STAGES} stages of the gated source; with {@code failures}, once a
   * checkpoint covers a stage, the source's subtask is armed to fail at a random record of the
   * next.
   */
  private List<String> run(boolean failures, long seed) throws Exception {
    Random random = new Random(seed);
    Configuration conf = Configuration.fromSystemProperties();
    conf.set(CoreOptions.AUTO_WATERMARK_INTERVAL, Duration.ZERO);
    StreamEnvironment env = StreamEnvironment.create(conf);
    env.setParallelism(2);
    env.enableCheckpointing(Duration.ofMillis(30));
    env.getCheckpointConfig().enableUnalignedCheckpoints();
    env.getCheckpointConfig().setCheckpointStorage(checkpoints.toUri().toString());
    env.setRestartStrategy(RestartStrategy.fixedDelay(STAGES, Duration.ZERO));

    CountingSource source = CountingSource.gated(EVENTS);
    FailAfter failAfter = new FailAfter();
    ExactlyOnceSink sink = new ExactlyOnceSink(UUID.randomUUID().toString());
    WatermarkStrategy<Long> strategy =
        WatermarkStrategy.<Long>forGenerator(ctx -> new EveryEighth())
            .withTimestampAssigner((v, ts) -> eventTime(v));
    DataStream<Long> events =
        env.fromSource(source, strategy, "events", Types.LONG)
            .setParallelism(1)
            .map(failAfter)
            .setParallelism(1);
    DataStream<String> tumbling =
        windows(events, "tumbling", TumblingEventTimeWindows.of(Duration.ofMillis(100)), 40);
    DataStream<String> sliding =
        windows(
            events,
            "sliding",
            SlidingEventTimeWindows.of(Duration.ofMillis(200), Duration.ofMillis(100)),
            0);
    DataStream<String> session =
        windows(events, "session", EventTimeSessionWindows.withGap(Duration.ofMillis(10)), 20);
    tumbling.union(sliding, session).sinkTo(sink);

    JobClient job = env.executeAsync("event-time-across-unaligned-restores");
    Path jobDir = jobDir(checkpoints, job);
    long stage = EVENTS / STAGES;
    // Records the subtasks of each attempt read from the in-flight data they restored; the
    // in-flight bytes of each checkpoint that covered a stage; the checkpoints restored.
    Map<Integer, Long> replayedByAttempt = new TreeMap<>();
    Map<Long, Long> inFlightBytes = new TreeMap<>();
    Set<Long> restored = new TreeSet<>();
    for (int s = 1; s <= STAGES; s++) {
      long allowed = s == STAGES ? EVENTS : s * stage;
      source.control().allow(allowed);
      long covering = awaitCoveringCheckpoint(jobDir, source, allowed);
      for (CheckpointStatistics c : job.getCheckpointStatistics()) {
        if (c.checkpointId() == covering) {
          inFlightBytes.put(covering, c.channelStateBytes());
        }
      }
      for (SubtaskStatus subtask : ((JobMaster) job).subtasks().get()) {
        if (subtask.restore() != null) {
          replayedByAttempt.merge(
              subtask.attempt(), subtask.restore().recordsReplayed(), Long::sum);
          restored.add(subtask.restore().checkpointId());
        }
      }
      if (failures && s < STAGES) {
        failAfter.arm(1 + random.nextInt((int) stage - 1));
      }
    }
    long replayed = replayedByAttempt.values().stream().mapToLong(Long::longValue).sum();
    boolean restoredInFlight =
        restored.stream().anyMatch(id -> inFlightBytes.getOrDefault(id, 0L) > 0);
    if (failures && restoredInFlight) {
      // Back-pressured windows: the overtaking barriers leave buffers in flight, which the restores
      // replay; the recovery progress counts their records. Whether a restored checkpoint caught
      // buffers in flight depends on how far the windows had caught up when it was taken (found
      // by a CI run where every restored checkpoint had none), so only then is a replay due.
      assertThat(replayed)
          .as(
              "records replayed from in-flight data, by attempt: %s; restored %s, in-flight bytes"
                  + " of the checkpoints that covered a stage %s (seed %d)",
              replayedByAttempt, restored, inFlightBytes, seed)
          .isPositive();
    } else if (!failures) {
      assertThat(replayed).as("nothing restored, nothing replayed").isZero();
    }
    source.control().finish();
    JobExecutionResult result = job.getJobExecutionResult().get();
    if (failures) {
      assertThat(result.metrics().get("job.restarts"))
          .as("restarts (seed %d)", seed)
          .isEqualTo((long) STAGES - 1);
    }
    return sink.committed();
  }

  /**
   * Counts per key and window of {@code assigner}, "kind key@start=count", and its late events,
   * "late kind key@timestamp".
   */
  private static DataStream<String> windows(
      DataStream<Long> events,
      String kind,
      WindowAssigner<Object, TimeWindow> assigner,
      long latenessMillis) {
    OutputTag<Long> late = new OutputTag<>("late-" + kind, Types.LONG);
    SingleOutputStreamOperator<String> windowed =
        events
            .keyBy(v -> v % KEYS, Types.LONG)
            .window(assigner)
            .allowedLateness(Duration.ofMillis(latenessMillis))
            .sideOutputLateData(late)
            .aggregate(new SlowCount(), new WindowRecoveryTest.Describe());
    DataStream<String> counts = windowed.map(line -> kind + " " + line).returns(Types.STRING);
    DataStream<String> lateEvents =
        windowed
            .getSideOutput(late)
            .map(v -> "late " + kind + " " + (v % KEYS) + "@" + eventTime(v))
            .returns(Types.STRING);
    return counts.union(lateEvents);
  }
}
