package io.weir.connector.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.weir.api.JobClient;
import io.weir.api.JobExecutionResult;
import io.weir.api.RestartStrategy;
import io.weir.api.StreamEnvironment;
import io.weir.api.functions.CheckpointListener;
import io.weir.api.functions.Collector;
import io.weir.api.functions.KeyedProcessFunction;
import io.weir.api.functions.OpenContext;
import io.weir.api.functions.RichMapFunction;
import io.weir.api.state.ValueState;
import io.weir.api.state.ValueStateDescriptor;
import io.weir.api.typeutils.Types;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Pattern;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Kafka in, keyed count, Kafka out, with many injected task failures: with the exactly-once sink a
 * {@code read_committed} consumer sees every input record exactly once, each key's counts are
 * exactly 1..n, and no transaction is left open (the last stable offset reaches the end); with the
 * at-least-once sink nothing is lost.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class KafkaExactlyOnceTest {

  @RegisterExtension static final KafkaBroker KAFKA = new KafkaBroker();

  static final int RECORDS = 1_000_000;
  static final int PARTITIONS = 4;
  static final int KEYS = 101;
  static final int FAILURES = 12;
  static final String INPUT = "numbers";

  /** Values at which the failing map fails, once each, in order: spread over the input. */
  static final long[] FAIL_AT = new long[FAILURES];

  static final AtomicInteger FAILURES_DONE = new AtomicInteger();

  /** Runs of the parameterized test so far: each adds one record per partition to the input. */
  static final AtomicInteger RUNS = new AtomicInteger();

  static {
    for (int i = 0; i < FAILURES; i++) {
      FAIL_AT[i] = RECORDS / 20 + (long) i * (RECORDS * 17L / 20) / FAILURES;
    }
  }

  private static boolean inputCreated;

  static synchronized void createInput() throws Exception {
    if (inputCreated) {
      return;
    }
    KAFKA.createTopic(INPUT, PARTITIONS);
    AtomicReference<Exception> failure = new AtomicReference<>();
    try (KafkaProducer<String, String> producer = KAFKA.producer()) {
      for (int i = 0; i < RECORDS; i++) {
        producer.send(
            new ProducerRecord<>(INPUT, i % PARTITIONS, null, Integer.toString(i)),
            (m, e) -> {
              if (e != null) {
                failure.compareAndSet(null, e);
              }
            });
      }
      producer.flush();
    }
    if (failure.get() != null) {
      throw failure.get();
    }
    inputCreated = true;
  }

  /** The highest value subtask 0 of the failing map has seen, over all attempts. */
  static final AtomicLong MAX_SEEN = new AtomicLong(-1);

  /**
   * Fails subtask 0 once the input has reached the next failure point, but only after a checkpoint
   * completed in the current attempt, so that every attempt makes progress. Even-numbered failures
   * are thrown from a record; all others from a checkpoint-complete notification (after a second
   * one in the attempt): then the sink may not have committed that checkpoint's transactions yet,
   * and the restored job must. The job cannot end before every failure happened: its last record
   * per partition is produced only then.
   */
  static final class FailingMap extends RichMapFunction<String, String>
      implements CheckpointListener {
    private static final long serialVersionUID = 1L;
    private transient boolean checkpointed;

    @Override
    public void open(OpenContext openContext) {
      checkpointed = false;
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) {
      boolean wasCheckpointed = checkpointed;
      checkpointed = true;
      int done = FAILURES_DONE.get();
      if (wasCheckpointed && due(done)) {
        throw new IllegalStateException(
            "injected failure " + (done + 1) + " on completion of checkpoint " + checkpointId);
      }
    }

    @Override
    public String map(String value) {
      if (getRuntimeContext().getIndexOfThisSubtask() == 0) {
        MAX_SEEN.accumulateAndGet(Long.parseLong(value), Math::max);
      }
      int done = FAILURES_DONE.get();
      if (checkpointed && done % 2 == 0 && due(done)) {
        throw new IllegalStateException("injected failure " + (done + 1) + " at " + value);
      }
      return value;
    }

    private boolean due(int done) {
      return done < FAILURES
          && getRuntimeContext().getIndexOfThisSubtask() == 0
          && MAX_SEEN.get() >= FAIL_AT[done]
          && FAILURES_DONE.compareAndSet(done, done + 1);
    }
  }

  /** "value,key,count": the count of the value's key after it. */
  static final class CountPerKey extends KeyedProcessFunction<Integer, String, String> {
    private static final long serialVersionUID = 1L;
    private transient ValueState<Long> count;

    @Override
    public void open(OpenContext openContext) {
      count = getRuntimeContext().getState(new ValueStateDescriptor<>("count", Types.LONG));
    }

    @Override
    public void processElement(String value, Context ctx, Collector<String> out) throws Exception {
      Long c = count.value();
      long next = (c == null ? 0 : c) + 1;
      count.update(next);
      out.collect(value + "," + ctx.getCurrentKey() + "," + next);
    }
  }

  static final AtomicBoolean GROWN_FAILED = new AtomicBoolean();

  /** Fails once, in the middle of a partition that was added while the job ran. */
  static final class FailInAddedPartition extends RichMapFunction<String, String> {
    private static final long serialVersionUID = 1L;

    @Override
    public String map(String value) {
      if (value.equals("a1-500") && GROWN_FAILED.compareAndSet(false, true)) {
        throw new IllegalStateException("injected failure at " + value);
      }
      return value;
    }
  }

  @Test
  void partitionsAndTopicsDiscoveredWhileRunningSurviveAFailureExactlyOnce() throws Exception {
    KAFKA.createTopic("grow-a", 1);
    KAFKA.createTopic("grown", 1);
    List<String> expected = new ArrayList<>();
    for (int i = 0; i < 1000; i++) {
      expected.add("a0-" + i);
    }
    KAFKA.produce("grow-a", 0, expected);
    StreamEnvironment env = StreamEnvironment.create();
    env.setParallelism(2);
    env.enableCheckpointing(Duration.ofMillis(100));
    env.getCheckpointConfig().setCheckpointTimeout(Duration.ofSeconds(30));
    env.setRestartStrategy(RestartStrategy.fixedDelay(3, Duration.ZERO));
    env.fromSource(
            KafkaSource.<String>builder()
                .setBootstrapServers(KAFKA.bootstrapServers())
                .setTopicPattern(Pattern.compile("grow-.*"))
                .setProperty(KafkaSourceBuilder.PARTITION_DISCOVERY_INTERVAL_MS, "100")
                .setDeserializer(KafkaRecordDeserializer.valueAsString())
                .build(),
            "grow",
            Types.STRING)
        .map(new FailInAddedPartition())
        .sinkTo(
            KafkaSink.<String>builder()
                .setBootstrapServers(KAFKA.bootstrapServers())
                .setDeliveryGuarantee(DeliveryGuarantee.EXACTLY_ONCE)
                .setTransactionalIdPrefix("grown")
                .setProperty("transaction.timeout.ms", "60000")
                .setRecordSerializer(KafkaRecordSerializer.valueAsString("grown"))
                .build());
    JobClient job = env.executeAsync("grow");
    try {
      await()
          .atMost(Duration.ofMinutes(1))
          .until(() -> KAFKA.readCommitted("grown").size() >= 1000);
      KAFKA.addPartitions("grow-a", 2);
      KAFKA.createTopic("grow-b", 1);
      List<String> added = new ArrayList<>();
      List<String> other = new ArrayList<>();
      for (int i = 0; i < 1000; i++) {
        added.add("a1-" + i);
        other.add("b0-" + i);
      }
      KAFKA.produce("grow-a", 1, added);
      KAFKA.produce("grow-b", 0, other);
      expected.addAll(added);
      expected.addAll(other);
      await()
          .atMost(Duration.ofMinutes(1))
          .until(
              () ->
                  GROWN_FAILED.get()
                      && new HashSet<>(KAFKA.readCommitted("grown")).size() >= expected.size());
    } finally {
      job.cancel().get(1, TimeUnit.MINUTES);
    }
    KAFKA.awaitNoOpenTransaction("grown", Duration.ofSeconds(30));
    assertThat(KAFKA.readCommitted("grown")).containsExactlyInAnyOrderElementsOf(expected);
  }

  @ParameterizedTest
  @EnumSource(
      value = DeliveryGuarantee.class,
      names = {"EXACTLY_ONCE", "AT_LEAST_ONCE"})
  void keyedCountSurvivesFailures(DeliveryGuarantee guarantee) throws Exception {
    createInput();
    String output = "counts-" + guarantee.name().toLowerCase(Locale.ROOT);
    KAFKA.createTopic(output, PARTITIONS);
    FAILURES_DONE.set(0);
    MAX_SEEN.set(-1);
    // Each run reads one more record per partition, produced once its failures have happened.
    int run = RUNS.incrementAndGet();
    int total = RECORDS + PARTITIONS * run;
    Map<TopicPartition, Long> end = new HashMap<>();
    for (int p = 0; p < PARTITIONS; p++) {
      end.put(new TopicPartition(INPUT, p), (long) (RECORDS / PARTITIONS + run));
    }

    StreamEnvironment env = StreamEnvironment.create();
    env.setParallelism(2);
    env.enableCheckpointing(Duration.ofMillis(100));
    env.getCheckpointConfig().setCheckpointTimeout(Duration.ofSeconds(30));
    env.setRestartStrategy(RestartStrategy.fixedDelay(FAILURES + 5, Duration.ZERO));
    env.fromSource(
            KafkaSource.<String>builder()
                .setBootstrapServers(KAFKA.bootstrapServers())
                .setTopics(INPUT)
                .setGroupId("counter-" + guarantee)
                .setBounded(OffsetsInitializer.offsets(end))
                .setDeserializer(KafkaRecordDeserializer.valueAsString())
                .build(),
            "numbers",
            Types.STRING)
        .map(new FailingMap())
        .keyBy(v -> Integer.parseInt(v) % KEYS)
        .process(new CountPerKey())
        .sinkTo(
            KafkaSink.<String>builder()
                .setBootstrapServers(KAFKA.bootstrapServers())
                .setDeliveryGuarantee(guarantee)
                .setTransactionalIdPrefix("counter-" + guarantee)
                .setProperty("transaction.timeout.ms", "60000")
                .setRecordSerializer(
                    KafkaRecordSerializer.of(
                        output,
                        v ->
                            v.substring(v.indexOf(',') + 1, v.lastIndexOf(','))
                                .getBytes(StandardCharsets.UTF_8),
                        v -> v.getBytes(StandardCharsets.UTF_8)))
                .build());
    JobClient job = env.executeAsync("kafka-" + guarantee);
    await().atMost(Duration.ofMinutes(3)).until(() -> FAILURES_DONE.get() == FAILURES);
    for (int i = total - PARTITIONS; i < total; i++) {
      KAFKA.produce(INPUT, i % PARTITIONS, List.of(Integer.toString(i)));
    }
    JobExecutionResult result = job.getJobExecutionResult().get(3, TimeUnit.MINUTES);

    assertThat(result.metrics().get("job.restarts")).isEqualTo(FAILURES);
    KAFKA.awaitNoOpenTransaction(output, Duration.ofSeconds(30));
    List<String> lines = KAFKA.readCommitted(output);
    int[] seen = new int[total];
    Map<Integer, BitSet> countsPerKey = new HashMap<>();
    Map<Integer, Integer> duplicateCounts = new HashMap<>();
    for (String line : lines) {
      String[] parts = line.split(",");
      seen[Integer.parseInt(parts[0])]++;
      int key = Integer.parseInt(parts[1]);
      int count = Integer.parseInt(parts[2]);
      BitSet counts = countsPerKey.computeIfAbsent(key, k -> new BitSet());
      if (counts.get(count)) {
        duplicateCounts.merge(key, 1, Integer::sum);
      }
      counts.set(count);
    }
    int missing = 0;
    int duplicated = 0;
    for (int n : seen) {
      missing += n == 0 ? 1 : 0;
      duplicated += n > 1 ? 1 : 0;
    }
    assertThat(missing).as("input records missing from the output").isZero();
    if (guarantee == DeliveryGuarantee.EXACTLY_ONCE) {
      assertThat(duplicated).as("input records more than once in the output").isZero();
      assertThat(lines).hasSize(total);
      assertThat(duplicateCounts).as("keys with a count twice").isEmpty();
      for (int key = 0; key < KEYS; key++) {
        int n = total / KEYS + (key < total % KEYS ? 1 : 0);
        BitSet counts = countsPerKey.get(key);
        assertThat(counts.cardinality()).isEqualTo(n);
        assertThat(counts.nextSetBit(0)).isEqualTo(1);
        assertThat(counts.length()).isEqualTo(n + 1);
      }
    }
  }
}
