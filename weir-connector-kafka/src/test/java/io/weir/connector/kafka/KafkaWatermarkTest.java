package io.weir.connector.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.weir.api.JobClient;
import io.weir.api.OutputTag;
import io.weir.api.SingleOutputStreamOperator;
import io.weir.api.StreamEnvironment;
import io.weir.api.eventtime.Watermark;
import io.weir.api.eventtime.WatermarkGenerator;
import io.weir.api.eventtime.WatermarkOutput;
import io.weir.api.eventtime.WatermarkStrategy;
import io.weir.api.functions.AggregateFunction;
import io.weir.api.typeutils.Types;
import io.weir.api.windowing.assigners.TumblingEventTimeWindows;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Per-partition watermarks of the Kafka source against a real broker: one source subtask reads two
 * partitions, each with its own generator; the subtask's watermark is their minimum, and a
 * partition without records for the idle timeout stops holding it back.
 *
 * <p>The generator emits a watermark with every record, so with one generator for the whole subtask
 * the first partition's record at 25 000 would close the window [0, 10 000) at once, and the
 * lagging partition's records, produced only after that record was read, would be late.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class KafkaWatermarkTest {

  @RegisterExtension static final KafkaBroker KAFKA = new KafkaBroker();

  static final Queue<Long> WINDOWS = new ConcurrentLinkedQueue<>();
  static final Queue<Long> LATE_RECORDS = new ConcurrentLinkedQueue<>();
  static final AtomicLong READ = new AtomicLong();

  private static final OutputTag<Long> LATE = new OutputTag<>("late") {};

  @BeforeEach
  void clear() {
    WINDOWS.clear();
    LATE_RECORDS.clear();
    READ.set(0);
  }

  @Test
  void aLaggingPartitionHoldsTheWindowBack() throws Exception {
    KAFKA.createTopic("wm-lag", 2);
    KAFKA.produce("wm-lag", 0, eventTimes(0, 100, 100, 25_000));
    JobClient job =
        windowCounts("wm-lag", WatermarkStrategy.forGenerator(ctx -> new EveryRecord()));
    try {
      await()
          .atMost(Duration.ofSeconds(30))
          .untilAsserted(
              () ->
                  assertThat(READ.get())
                      .as("records read; job %s", job.getJobStatus().get())
                      .isEqualTo(101));
      // Partition 1 has delivered nothing: its watermark is the start of time, so is the minimum.
      KAFKA.produce("wm-lag", 1, eventTimes(5_000, 1, 10, 30_000));
      await()
          .atMost(Duration.ofSeconds(20))
          .untilAsserted(
              () ->
                  assertThat(WINDOWS).as("read %s late %s", READ.get(), LATE_RECORDS).isNotEmpty());
      // min(25 000, 30 000) closes [0, 10 000) with both partitions' records, and not [20 000, ..).
      assertThat(WINDOWS).containsExactly(110L);
      assertThat(LATE_RECORDS).isEmpty();
    } finally {
      job.cancel().get(1, TimeUnit.MINUTES);
    }
  }

  @Test
  void anIdlePartitionStopsHoldingTheWatermarkWhileTheOtherIsActive() throws Exception {
    KAFKA.createTopic("wm-idle", 2);
    KAFKA.produce("wm-idle", 0, eventTimes(0, 100, 100, 25_000));
    JobClient job =
        windowCounts(
            "wm-idle",
            WatermarkStrategy.<Long>forGenerator(ctx -> new EveryRecord())
                .withIdleness(Duration.ofMillis(500)));
    try {
      // Partition 1 never gets a record: after 500 ms it is idle, while partition 0 keeps
      // delivering (so it, and the subtask, stay active) and alone moves event time to 25 000.
      // (Were both idle at once, the subtask would go idle without a watermark, as in Flink.)
      await().atMost(Duration.ofMinutes(1)).until(() -> READ.get() == 101);
      int more = 0;
      while (WINDOWS.isEmpty()) {
        assertThat(more)
            .as("records produced to partition 0 before the window fired")
            .isLessThan(20_000);
        KAFKA.produce("wm-idle", 0, List.of("25000"));
        more++;
      }
      assertThat(WINDOWS).containsExactly(100L);
      assertThat(LATE_RECORDS).isEmpty();
    } finally {
      job.cancel().get(1, TimeUnit.MINUTES);
    }
  }

  /** {@code count} event times from {@code first} in steps of {@code step}, then {@code last}. */
  private static List<String> eventTimes(long first, long step, int count, long last) {
    List<String> values = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      values.add(Long.toString(first + i * step));
    }
    values.add(Long.toString(last));
    return values;
  }

  /** Counts per tumbling 10 s event-time window over one source subtask reading both partitions. */
  private static JobClient windowCounts(String topic, WatermarkStrategy<Long> generator)
      throws Exception {
    StreamEnvironment env = StreamEnvironment.create();
    env.setParallelism(1);
    KafkaSource<Long> source =
        KafkaSource.<Long>builder()
            .setBootstrapServers(KAFKA.bootstrapServers())
            .setTopics(topic)
            .setDeserializer(r -> Long.parseLong(new String(r.value(), StandardCharsets.UTF_8)))
            .build();
    SingleOutputStreamOperator<Long> counts =
        env.fromSource(source, generator.withTimestampAssigner((v, ts) -> v), "in", Types.LONG)
            .filter(
                v -> {
                  READ.incrementAndGet();
                  return true;
                })
            .keyBy(v -> 0L, Types.LONG)
            .window(TumblingEventTimeWindows.of(Duration.ofSeconds(10)))
            .sideOutputLateData(LATE)
            .aggregate(new Count());
    // Sinks refer to the static queues (a captured queue would be copied with the function).
    counts.sinkTo(context -> (element, ctx) -> WINDOWS.add(element));
    counts.getSideOutput(LATE).sinkTo(context -> (element, ctx) -> LATE_RECORDS.add(element));
    return env.executeAsync("watermarks-" + topic);
  }

  /** A watermark at every record's timestamp: event time moves with each record. */
  static final class EveryRecord implements WatermarkGenerator<Long> {
    @Override
    public void onEvent(Long event, long eventTimestamp, WatermarkOutput output) {
      output.emitWatermark(new Watermark(eventTimestamp));
    }

    @Override
    public void onPeriodicEmit(WatermarkOutput output) {}
  }

  /** Counts per window. */
  static final class Count implements AggregateFunction<Long, Long, Long> {
    private static final long serialVersionUID = 1L;

    @Override
    public Long createAccumulator() {
      return 0L;
    }

    @Override
    public Long add(Long value, Long accumulator) {
      return accumulator + 1;
    }

    @Override
    public Long getResult(Long accumulator) {
      return accumulator;
    }

    @Override
    public Long merge(Long a, Long b) {
      return a + b;
    }
  }
}
