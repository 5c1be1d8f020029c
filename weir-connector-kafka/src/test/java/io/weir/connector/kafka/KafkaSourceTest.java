package io.weir.connector.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.weir.api.ExternalizedCheckpointRetention;
import io.weir.api.JobClient;
import io.weir.api.JobExecutionResult;
import io.weir.api.RestartStrategy;
import io.weir.api.StreamEnvironment;
import io.weir.api.config.CheckpointingOptions;
import io.weir.api.functions.CheckpointListener;
import io.weir.api.functions.Collector;
import io.weir.api.functions.KeyedProcessFunction;
import io.weir.api.functions.OpenContext;
import io.weir.api.functions.RichMapFunction;
import io.weir.api.sink.Sink;
import io.weir.api.state.ValueState;
import io.weir.api.state.ValueStateDescriptor;
import io.weir.api.typeutils.Types;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Pattern;
import java.util.stream.IntStream;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** The Kafka source against a real broker: bounded reads, restore, discovery and bad input. */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class KafkaSourceTest {

  @RegisterExtension static final KafkaBroker KAFKA = new KafkaBroker();

  static final Queue<String> OUT = new ConcurrentLinkedQueue<>();

  @BeforeEach
  void clear() {
    OUT.clear();
  }

  /** Collects every element into {@link #OUT}. */
  static Sink<String> collect() {
    return context -> (element, ctx) -> OUT.add(element);
  }

  private KafkaSourceBuilder<String> source(String... topics) {
    return KafkaSource.<String>builder()
        .setBootstrapServers(KAFKA.bootstrapServers())
        .setTopics(topics)
        .setDeserializer(KafkaRecordDeserializer.valueAsString());
  }

  private static List<String> values(String prefix, int n) {
    return IntStream.range(0, n).mapToObj(i -> prefix + i).toList();
  }

  @Test
  void boundedSourceStopsAtTheOffsetsSeenAtStart() throws Exception {
    KAFKA.createTopic("bounded", 3);
    List<String> expected = new ArrayList<>();
    for (int p = 0; p < 3; p++) {
      List<String> values = values("p" + p + "-", 300);
      KAFKA.produce("bounded", p, values);
      expected.addAll(values);
    }
    StreamEnvironment env = StreamEnvironment.create();
    env.setParallelism(2);
    env.fromSource(
            source("bounded").setBounded(OffsetsInitializer.latest()).build(), "in", Types.STRING)
        .sinkTo(collect());
    env.execute("bounded");
    assertThat(OUT).containsExactlyInAnyOrderElementsOf(expected);
  }

  @Test
  void timestampLatestAndCommittedStartingOffsets() throws Exception {
    KAFKA.createTopic("starting", 1);
    KAFKA.produce("starting", 0, values("old-", 50));
    long boundary = System.currentTimeMillis() + 1;
    await().until(() -> System.currentTimeMillis() > boundary);
    KAFKA.produce("starting", 0, values("new-", 50));
    Map<TopicPartition, Long> end = Map.of(new TopicPartition("starting", 0), 100L);

    StreamEnvironment env = StreamEnvironment.create();
    env.fromSource(
            source("starting")
                .setStartingOffsets(OffsetsInitializer.timestamp(boundary))
                .setBounded(OffsetsInitializer.offsets(end))
                .build(),
            "in",
            Types.STRING)
        .sinkTo(collect());
    env.execute("timestamp");
    assertThat(OUT).containsExactlyElementsOf(values("new-", 50));

    OUT.clear();
    env.fromSource(
            source("starting")
                .setStartingOffsets(OffsetsInitializer.latest())
                .setBounded(OffsetsInitializer.latest())
                .build(),
            "in",
            Types.STRING)
        .sinkTo(collect());
    env.execute("latest");
    assertThat(OUT).isEmpty();

    KAFKA
        .admin()
        .alterConsumerGroupOffsets(
            "starting-group", Map.of(new TopicPartition("starting", 0), new OffsetAndMetadata(90)))
        .all()
        .get();
    env.fromSource(
            source("starting")
                .setGroupId("starting-group")
                .setStartingOffsets(OffsetsInitializer.committedOffsets())
                .setBounded(OffsetsInitializer.latest())
                .build(),
            "in",
            Types.STRING)
        .sinkTo(collect());
    env.execute("committed");
    assertThat(OUT).containsExactlyElementsOf(values("new-", 50).subList(40, 50));
  }

  static final AtomicBoolean FAILED = new AtomicBoolean();
  static final CountDownLatch CHECKPOINTED = new CountDownLatch(1);

  /** Fails once, a few records after a checkpoint completed. */
  static final class FailOnceAfterCheckpoint extends RichMapFunction<String, String>
      implements CheckpointListener {
    private static final long serialVersionUID = 1L;
    private transient long countdown;

    @Override
    public void open(OpenContext openContext) {
      countdown = -1;
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) {
      CHECKPOINTED.countDown();
      if (countdown < 0 && !FAILED.get()) {
        countdown = ThreadLocalRandom.current().nextLong(1, 50);
      }
    }

    @Override
    public String map(String value) {
      if (countdown > 0 && --countdown == 0 && FAILED.compareAndSet(false, true)) {
        throw new IllegalStateException("injected failure at " + value);
      }
      return value;
    }
  }

  /** Emits "key,count" for every element: the highest count per key is the number seen once. */
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
      out.collect(ctx.getCurrentKey() + "," + next);
    }
  }

  static final int KEYS = 7;

  @Test
  void restoreResumesAtCheckpointedOffsetsNotAtTheGroupsCommittedOffsets() throws Exception {
    KAFKA.createTopic("restore", 2);
    int perPartitionAndPhase = 2500;
    for (int p = 0; p < 2; p++) {
      KAFKA.produce("restore", p, values(p + "-", perPartitionAndPhase));
    }
    Map<TopicPartition, Long> end = new HashMap<>();
    Map<TopicPartition, OffsetAndMetadata> groupOffsets = new HashMap<>();
    for (int p = 0; p < 2; p++) {
      end.put(new TopicPartition("restore", p), 2L * perPartitionAndPhase);
      groupOffsets.put(
          new TopicPartition("restore", p), new OffsetAndMetadata(2L * perPartitionAndPhase));
    }
    // The group claims everything is read: a restore that trusted it would lose the rest.
    KAFKA.admin().alterConsumerGroupOffsets("restore-group", groupOffsets).all().get();

    StreamEnvironment env = StreamEnvironment.create();
    env.setParallelism(2);
    env.enableCheckpointing(Duration.ofMillis(50));
    env.setRestartStrategy(RestartStrategy.fixedDelay(3, Duration.ZERO));
    env.fromSource(
            source("restore")
                .setGroupId("restore-group")
                .setProperty(KafkaSourceBuilder.COMMIT_OFFSETS_ON_CHECKPOINT, "false")
                .setStartingOffsets(OffsetsInitializer.earliest())
                .setBounded(OffsetsInitializer.offsets(end))
                .build(),
            "in",
            Types.STRING)
        .map(new FailOnceAfterCheckpoint())
        .keyBy(v -> Math.floorMod(v.hashCode(), KEYS))
        .process(new CountPerKey())
        .sinkTo(collect());
    JobClient job = env.executeAsync("restore");
    assertThat(CHECKPOINTED.await(60, TimeUnit.SECONDS)).isTrue();
    Map<Integer, Long> expected = new HashMap<>();
    for (int p = 0; p < 2; p++) {
      List<String> all = values(p + "-", 2 * perPartitionAndPhase);
      for (String v : all) {
        expected.merge(Math.floorMod(v.hashCode(), KEYS), 1L, Long::sum);
      }
      KAFKA.produce("restore", p, all.subList(perPartitionAndPhase, all.size()));
    }
    JobExecutionResult result = job.getJobExecutionResult().get(2, TimeUnit.MINUTES);

    assertThat(FAILED).isTrue();
    assertThat(result.metrics().get("job.restarts")).isEqualTo(1);
    Map<Integer, Long> maxCount = new HashMap<>();
    for (String line : OUT) {
      String[] parts = line.split(",");
      maxCount.merge(Integer.parseInt(parts[0]), Long.parseLong(parts[1]), Math::max);
    }
    // Resumed from the group offsets: counts too low; from the start again: too high.
    assertThat(maxCount).isEqualTo(expected);
  }

  @Test
  void aRestoreAtAnotherParallelismReadsEveryPartitionOnceFromItsCheckpointedOffset(
      @TempDir Path checkpoints) throws Exception {
    KAFKA.createTopic("rescale", 4);
    Map<TopicPartition, Long> end = new HashMap<>();
    Map<Integer, Long> expected = new HashMap<>();
    for (int p = 0; p < 4; p++) {
      end.put(new TopicPartition("rescale", p), 800L);
      List<String> all = values(p + "-", 800);
      all.forEach(v -> expected.merge(Math.floorMod(v.hashCode(), KEYS), 1L, Long::sum));
      KAFKA.produce("rescale", p, all.subList(0, 300));
    }
    KafkaSource<String> source =
        source("rescale").setBounded(OffsetsInitializer.offsets(end)).build();

    StreamEnvironment first = StreamEnvironment.create();
    first.setParallelism(2);
    first.enableCheckpointing(Duration.ofMillis(50));
    first
        .getCheckpointConfig()
        .setCheckpointStorage(checkpoints.toUri().toString())
        .setExternalizedCheckpointRetention(ExternalizedCheckpointRetention.RETAIN_ON_CANCELLATION);
    countPipeline(first, source);
    JobClient job = first.executeAsync("before-rescale");
    await().atMost(Duration.ofMinutes(1)).until(() -> OUT.size() >= 1200);
    await().atMost(Duration.ofMinutes(1)).until(() -> newestCheckpoint(checkpoints) != null);
    job.cancel().get(1, TimeUnit.MINUTES);
    Path retained = newestCheckpoint(checkpoints);

    for (int p = 0; p < 4; p++) {
      KAFKA.produce("rescale", p, values(p + "-", 800).subList(300, 800));
    }
    OUT.clear();
    StreamEnvironment second = StreamEnvironment.create();
    second.setParallelism(3);
    second.getConfiguration().set(CheckpointingOptions.SAVEPOINT_PATH, retained.toUri().toString());
    countPipeline(second, source);
    second.execute("after-rescale");

    Map<Integer, Long> maxCount = new HashMap<>();
    for (String line : OUT) {
      String[] parts = line.split(",");
      maxCount.merge(Integer.parseInt(parts[0]), Long.parseLong(parts[1]), Math::max);
    }
    assertThat(maxCount).isEqualTo(expected);
  }

  private static void countPipeline(StreamEnvironment env, KafkaSource<String> source) {
    env.fromSource(source, "in", Types.STRING)
        .uid("source")
        .keyBy(v -> Math.floorMod(v.hashCode(), KEYS))
        .process(new CountPerKey())
        .uid("counter")
        .sinkTo(collect());
  }

  /**
   * The newest chk-* directory with its metadata written, or null. Lists the job directories and
   * their chk-* entries by name only, never reading an entry's attributes: the job deletes subsumed
   * checkpoints meanwhile, and a walk that stats what it lists fails on one deleted between the
   * two.
   */
  private static Path newestCheckpoint(Path dir) throws IOException {
    Path newest = null;
    long newestId = -1;
    try (DirectoryStream<Path> jobs = Files.newDirectoryStream(dir)) {
      for (Path job : jobs) {
        try (DirectoryStream<Path> chks = Files.newDirectoryStream(job, "chk-*")) {
          for (Path chk : chks) {
            long id = Long.parseLong(chk.getFileName().toString().substring(4));
            if (id > newestId && Files.exists(chk.resolve("_metadata"))) {
              newest = chk;
              newestId = id;
            }
          }
        } catch (NotDirectoryException | NoSuchFileException e) {
          // a file beside the job directories, or a job directory deleted meanwhile
        }
      }
    }
    return newest;
  }

  @Test
  void partitionsAndTopicsAddedWhileRunningArePickedUpAndOffsetsCommitted() throws Exception {
    KAFKA.createTopic("disc-a", 1);
    KAFKA.produce("disc-a", 0, values("a0-", 10));
    StreamEnvironment env = StreamEnvironment.create();
    env.setParallelism(2);
    env.enableCheckpointing(Duration.ofMillis(100));
    env.fromSource(
            KafkaSource.<String>builder()
                .setBootstrapServers(KAFKA.bootstrapServers())
                .setTopicPattern(Pattern.compile("disc-.*"))
                .setGroupId("disc-group")
                .setProperty(KafkaSourceBuilder.PARTITION_DISCOVERY_INTERVAL_MS, "100")
                .setDeserializer(KafkaRecordDeserializer.valueAsString())
                .build(),
            "in",
            Types.STRING)
        .sinkTo(collect());
    JobClient job = env.executeAsync("discovery");
    try {
      List<String> expected = new ArrayList<>(values("a0-", 10));
      await().atMost(Duration.ofMinutes(1)).until(() -> OUT.size() >= 10);
      KAFKA.addPartitions("disc-a", 3);
      KAFKA.createTopic("disc-b", 2);
      for (int p = 1; p < 3; p++) {
        KAFKA.produce("disc-a", p, values("a" + p + "-", 10));
        expected.addAll(values("a" + p + "-", 10));
      }
      for (int p = 0; p < 2; p++) {
        KAFKA.produce("disc-b", p, values("b" + p + "-", 10));
        expected.addAll(values("b" + p + "-", 10));
      }
      await().atMost(Duration.ofMinutes(1)).until(() -> OUT.size() >= expected.size());
      assertThat(OUT).containsExactlyInAnyOrderElementsOf(expected);
      // Offsets reach the group when checkpoints complete (for monitoring).
      await()
          .atMost(Duration.ofMinutes(1))
          .untilAsserted(
              () -> {
                Map<TopicPartition, OffsetAndMetadata> committed =
                    KAFKA
                        .admin()
                        .listConsumerGroupOffsets("disc-group")
                        .partitionsToOffsetAndMetadata()
                        .get();
                assertThat(committed).hasSize(5);
                committed.values().forEach(o -> assertThat(o.offset()).isEqualTo(10));
              });
    } finally {
      job.cancel().get(1, TimeUnit.MINUTES);
    }
  }

  @Test
  void aBoundedJobHasCommittedTheOffsetsOfItsFinalCheckpointWhenItEnds() throws Exception {
    KAFKA.createTopic("final-commit", 2);
    for (int p = 0; p < 2; p++) {
      KAFKA.produce("final-commit", p, values("v" + p + "-", 20));
    }
    StreamEnvironment env = StreamEnvironment.create();
    env.setParallelism(2);
    // No periodic checkpoint comes before the end: only the final one commits offsets.
    env.enableCheckpointing(Duration.ofHours(1));
    env.fromSource(
            KafkaSource.<String>builder()
                .setBootstrapServers(KAFKA.bootstrapServers())
                .setTopics("final-commit")
                .setGroupId("final-commit-group")
                .setBounded(OffsetsInitializer.latest())
                .setDeserializer(KafkaRecordDeserializer.valueAsString())
                .build(),
            "in",
            Types.STRING)
        .sinkTo(collect());
    env.execute("final-commit");
    assertThat(OUT).hasSize(40);
    Map<TopicPartition, OffsetAndMetadata> committed =
        KAFKA
            .admin()
            .listConsumerGroupOffsets("final-commit-group")
            .partitionsToOffsetAndMetadata()
            .get();
    assertThat(committed)
        .as("the consumer was closed before the final checkpoint's commit reached the group")
        .hasSize(2);
    committed.values().forEach(o -> assertThat(o.offset()).isEqualTo(20));
  }

  @Test
  void unreachableBrokerFailsWithTheAddressWithinTheApiTimeout() {
    StreamEnvironment env = StreamEnvironment.create();
    env.fromSource(
            KafkaSource.<String>builder()
                .setBootstrapServers("127.0.0.1:1")
                .setTopics("t")
                .setProperty("default.api.timeout.ms", "2000")
                .setDeserializer(KafkaRecordDeserializer.valueAsString())
                .build(),
            "in",
            Types.STRING)
        .sinkTo(collect());
    assertTimeoutPreemptively(
        Duration.ofMinutes(1),
        () ->
            assertThatThrownBy(() -> env.execute("unreachable"))
                .hasStackTraceContaining("127.0.0.1:1 (bootstrap.servers)")
                .hasStackTraceContaining("2000 ms (default.api.timeout.ms)"));
  }

  @Test
  void missingTopicIsNamed() {
    StreamEnvironment env = StreamEnvironment.create();
    env.fromSource(source("no-such-topic").build(), "in", Types.STRING).sinkTo(collect());
    assertThatThrownBy(() -> env.execute("missing"))
        .hasStackTraceContaining("Topic 'no-such-topic' does not exist");
  }

  /** Parses the value as a number: "boom" throws. */
  static KafkaRecordDeserializer<String> numbers() {
    return record -> {
      String value = new String(record.value(), StandardCharsets.UTF_8);
      return String.valueOf(Integer.parseInt(value));
    };
  }

  @Test
  void throwingDeserializerNamesTopicPartitionAndOffsetOrSkips() throws Exception {
    KAFKA.createTopic("bad", 1);
    KAFKA.produce("bad", 0, List.of("1", "2", "boom", "4"));
    StreamEnvironment env = StreamEnvironment.create();
    env.fromSource(
            source("bad")
                .setDeserializer(numbers())
                .setBounded(OffsetsInitializer.latest())
                .build(),
            "in",
            Types.STRING)
        .sinkTo(collect());
    assertThatThrownBy(() -> env.execute("bad"))
        .hasStackTraceContaining("offset 2 of partition 0 of topic 'bad'")
        .hasStackTraceContaining("NumberFormatException");

    OUT.clear();
    env.fromSource(
            source("bad")
                .setDeserializer(numbers())
                .setDeserializationFailurePolicy(DeserializationFailurePolicy.SKIP)
                .setBounded(OffsetsInitializer.latest())
                .build(),
            "in",
            Types.STRING)
        .sinkTo(collect());
    env.execute("skip");
    assertThat(OUT).containsExactly("1", "2", "4");
  }
}
