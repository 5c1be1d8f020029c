package io.weir.benchmarks.kafka;

import io.weir.benchmarks.Engine;
import io.weir.benchmarks.Workload;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Future;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * KAFKA and KAFKA-LATENCY, the parts that are no engine's: the workloads, the topics, the record
 * format, the settings both engines' sinks get, filling the input and checking the output. Only
 * kafka-clients here, which is on both engines' class paths at the same version.
 *
 * <p>The job, the same on both engines: a Kafka source on {@link #INPUT} (4 partitions, earliest
 * offsets, {@code read_committed}) → {@code keyBy(key)} → a {@code ValueState<Long>} count per key
 * → a Kafka sink into {@link #OUTPUT} (4 partitions, the key picks the partition), exactly-once
 * (transactions) or at-least-once, a checkpoint every second, parallelism 2.
 *
 * <p>Records: an input value is 16 bytes, {@code key} then {@code stamp} (two big-endian longs, no
 * Kafka key); an output record has the 8-byte key as Kafka key and 24 bytes of value, {@code key,
 * count, stamp}. {@code stamp} is 0 in the throughput runs and the produce time ({@link
 * System#nanoTime()} of the child JVM, which also consumes) in the latency runs.
 */
public final class KafkaBench {
  public static final String THROUGHPUT_ID = "KAFKA";
  public static final String LATENCY_ID = "KAFKA-LATENCY";
  public static final String EXACTLY_ONCE = "exactly-once";
  public static final String AT_LEAST_ONCE = "at-least-once";
  public static final String LATENCY_PREFIX = "latency-";
  public static final List<String> THROUGHPUT_CONFIGS = List.of(EXACTLY_ONCE, AT_LEAST_ONCE);
  public static final List<String> LATENCY_CONFIGS =
      List.of(LATENCY_PREFIX + EXACTLY_ONCE, LATENCY_PREFIX + AT_LEAST_ONCE);

  public static final String INPUT = "bench-input";
  public static final String OUTPUT = "bench-output";
  public static final int PARTITIONS = 4;
  public static final String GROUP_ID = "weir-bench";
  public static final String TRANSACTIONAL_ID_PREFIX = "weir-bench";

  /** Records pre-filled into the input of a throughput run. */
  public static final long DEFAULT_RECORDS = 3_000_000L;

  /** The latency runs' input rate, records per second, and the first seconds left out. */
  public static final int LATENCY_RATE = 20_000;

  public static final int LATENCY_WARM_UP_SECONDS = 5;

  /** Records a latency run produces by default: 30 s at the rate, after the warm-up. */
  public static final long DEFAULT_LATENCY_RECORDS = 30L * LATENCY_RATE;

  /** Both sinks: 15 min, the broker's default {@code transaction.max.timeout.ms}. */
  public static final long TRANSACTION_TIMEOUT_MS = Duration.ofMinutes(15).toMillis();

  public static final Workload THROUGHPUT =
      new Workload(
          THROUGHPUT_ID,
          "kafka-keyed-count-kafka",
          DEFAULT_RECORDS,
          THROUGHPUT_CONFIGS,
          Map.of(Engine.WEIR, WeirKafka.class, Engine.FLINK, FlinkKafka.class),
          Duration.ZERO,
          "rec/s = input records / job time (submission to the end of the bounded job, whose"
              + " last transaction is committed by then); the broker runs in a helper JVM"
              + " started before the clock and the input is filled before it; output ="
              + " records a read_committed consumer saw in the output topic after the job;"
              + " lingering = partitions whose last stable offset is below their end");

  public static final Workload LATENCY =
      new Workload(
          LATENCY_ID,
          "kafka-end-to-end-latency",
          DEFAULT_LATENCY_RECORDS,
          LATENCY_CONFIGS,
          Map.of(Engine.WEIR, WeirKafka.class, Engine.FLINK, FlinkKafka.class),
          Duration.ofSeconds(DEFAULT_LATENCY_RECORDS / LATENCY_RATE + LATENCY_WARM_UP_SECONDS),
          "a producer writes "
              + LATENCY_RATE
              + " rec/s into the input while the job runs, each record stamped with its"
              + " produce time; a read_committed consumer of the output takes visibility - produce"
              + " time per record; p50Ms, p99Ms, maxMs over the records produced after the first "
              + LATENCY_WARM_UP_SECONDS
              + " s; records = those measured; rec/s = the rate achieved; seen = records of the"
              + " measured span the consumer saw (all, unless the job fell behind)");

  private KafkaBench() {}

  /**
   * A network buffer timeout for a diagnosis by hand, {@code
   * -Dweir.bench.kafka.buffer-timeout-ms=0} (both engines' default, 100 ms, when unset; the runner
   * never sets it).
   */
  public static java.util.OptionalLong bufferTimeoutMs() {
    String value = System.getProperty("weir.bench.kafka.buffer-timeout-ms");
    return value == null
        ? java.util.OptionalLong.empty()
        : java.util.OptionalLong.of(Long.parseLong(value));
  }

  /** Whether {@code config} is a latency configuration. */
  public static boolean latency(String config) {
    return config.startsWith(LATENCY_PREFIX);
  }

  /** Whether {@code config}'s sink is exactly-once (else at-least-once). */
  public static boolean exactlyOnce(String config) {
    return config.endsWith(EXACTLY_ONCE);
  }

  /** W1's key of the {@code i}-th record: 100 000 keys. */
  public static long key(long i) {
    return ((i * 0x9E3779B97F4A7C15L) >>> 47) % 100_000;
  }

  /** An input record's value. */
  public static byte[] inputValue(long key, long stamp) {
    return ByteBuffer.allocate(16).putLong(key).putLong(stamp).array();
  }

  public static long inputKey(byte[] value) {
    return ByteBuffer.wrap(value).getLong(0);
  }

  public static long inputStamp(byte[] value) {
    return ByteBuffer.wrap(value).getLong(8);
  }

  /** An output record's Kafka key. */
  public static byte[] outputKey(long key) {
    return ByteBuffer.allocate(8).putLong(key).array();
  }

  /** An output record's value. */
  public static byte[] outputValue(long key, long count, long stamp) {
    return ByteBuffer.allocate(24).putLong(key).putLong(count).putLong(stamp).array();
  }

  /**
   * The producer settings both sinks get, where each engine's defaults could differ: {@code
   * acks=all}, {@code linger.ms=5} and {@code batch.size=16384} (kafka-clients 4's defaults), and
   * for exactly-once the transaction timeout.
   */
  public static Properties sinkProducerProperties(boolean exactlyOnce) {
    Properties props = new Properties();
    props.put(ProducerConfig.ACKS_CONFIG, "all");
    props.put(ProducerConfig.LINGER_MS_CONFIG, "5");
    props.put(ProducerConfig.BATCH_SIZE_CONFIG, "16384");
    if (exactlyOnce) {
      props.put(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, Long.toString(TRANSACTION_TIMEOUT_MS));
    }
    return props;
  }

  /** The consumer settings both sources get: read only committed records. */
  public static Properties sourceConsumerProperties() {
    Properties props = new Properties();
    props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    return props;
  }

  /** Creates {@link #INPUT} and {@link #OUTPUT}, {@link #PARTITIONS} partitions each. */
  public static void createTopics(String bootstrap) throws Exception {
    try (Admin admin = admin(bootstrap)) {
      admin
          .createTopics(
              List.of(
                  new NewTopic(INPUT, PARTITIONS, (short) 1),
                  new NewTopic(OUTPUT, PARTITIONS, (short) 1)))
          .all()
          .get();
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (true) {
        try {
          if (admin.describeTopics(List.of(INPUT, OUTPUT)).allTopicNames().get().values().stream()
              .allMatch(t -> t.partitions().size() == PARTITIONS)) {
            return;
          }
        } catch (Exception e) {
          if (System.nanoTime() > deadline) {
            throw e;
          }
        }
        Thread.sleep(20);
      }
    }
  }

  /**
   * Brings up the broker's internal topics before the clock, as on a broker that has served for a
   * while: a committed offset for {@link #GROUP_ID} creates {@code __consumer_offsets} and loads
   * the group's coordinator, and one transaction creates {@code __transaction_state}. Without it
   * the first checkpoint's offset commit of either engine's source fails (the coordinator is not
   * available yet) and the first transactional producer waits for the topic.
   */
  public static void prepareInternalTopics(String bootstrap) throws Exception {
    Properties consumerProps = new Properties();
    consumerProps.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    consumerProps.put(ConsumerConfig.GROUP_ID_CONFIG, GROUP_ID);
    consumerProps.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    try (KafkaConsumer<byte[], byte[]> consumer =
        new KafkaConsumer<>(
            consumerProps, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      Map<TopicPartition, org.apache.kafka.clients.consumer.OffsetAndMetadata> offsets =
          new HashMap<>();
      for (int p = 0; p < PARTITIONS; p++) {
        offsets.put(
            new TopicPartition(INPUT, p),
            new org.apache.kafka.clients.consumer.OffsetAndMetadata(0));
      }
      consumer.commitSync(offsets, Duration.ofMinutes(1));
    }
    Properties producerProps = new Properties();
    producerProps.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    producerProps.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "weir-bench-prepare");
    try (KafkaProducer<byte[], byte[]> producer =
        new KafkaProducer<>(producerProps, new ByteArraySerializer(), new ByteArraySerializer())) {
      producer.initTransactions();
      producer.beginTransaction();
      producer.commitTransaction();
    }
  }

  /**
   * Writes {@code records} input records (keys of records 1..N, stamp 0) round robin over the
   * partitions and waits for every ack.
   */
  public static void fillInput(String bootstrap, long records) throws Exception {
    Properties props = new Properties();
    props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    props.put(ProducerConfig.ACKS_CONFIG, "all");
    props.put(ProducerConfig.LINGER_MS_CONFIG, "10");
    props.put(ProducerConfig.BATCH_SIZE_CONFIG, Integer.toString(256 * 1024));
    try (KafkaProducer<byte[], byte[]> producer =
        new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer())) {
      List<Future<RecordMetadata>> pending = new ArrayList<>();
      for (long i = 1; i <= records; i++) {
        pending.add(
            producer.send(
                new ProducerRecord<>(INPUT, (int) (i % PARTITIONS), null, inputValue(key(i), 0))));
        if (pending.size() == 100_000) {
          for (Future<RecordMetadata> ack : pending) {
            ack.get();
          }
          pending.clear();
        }
      }
      for (Future<RecordMetadata> ack : pending) {
        ack.get();
      }
    }
  }

  /**
   * What a {@code read_committed} consumer sees in {@link #OUTPUT} after a job: its records, and
   * how many partitions a transaction still holds back (last stable offset below the end).
   */
  public record Output(long records, int lingering) {}

  public static Output readOutput(String bootstrap) throws Exception {
    Map<TopicPartition, Long> stable;
    Map<TopicPartition, Long> end;
    try (Admin admin = admin(bootstrap)) {
      stable = endOffsets(admin, IsolationLevel.READ_COMMITTED);
      end = endOffsets(admin, IsolationLevel.READ_UNCOMMITTED);
    }
    int lingering = 0;
    for (TopicPartition tp : end.keySet()) {
      if (stable.get(tp) < end.get(tp)) {
        lingering++;
      }
    }
    long seen = 0;
    try (KafkaConsumer<byte[], byte[]> consumer = committedConsumer(bootstrap)) {
      consumer.assign(stable.keySet());
      consumer.seekToBeginning(stable.keySet());
      Map<TopicPartition, Long> remaining = new HashMap<>(stable);
      long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
      while (true) {
        remaining.entrySet().removeIf(e -> consumer.position(e.getKey()) >= e.getValue());
        if (remaining.isEmpty() || System.nanoTime() > deadline) {
          break;
        }
        seen += consumer.poll(Duration.ofMillis(200)).count();
      }
    }
    return new Output(seen, lingering);
  }

  private static Map<TopicPartition, Long> endOffsets(Admin admin, IsolationLevel isolation)
      throws Exception {
    Map<TopicPartition, OffsetSpec> request = new HashMap<>();
    for (int p = 0; p < PARTITIONS; p++) {
      request.put(new TopicPartition(OUTPUT, p), OffsetSpec.latest());
    }
    Map<TopicPartition, Long> result = new HashMap<>();
    admin
        .listOffsets(request, new ListOffsetsOptions(isolation))
        .all()
        .get()
        .forEach((tp, info) -> result.put(tp, info.offset()));
    return result;
  }

  static KafkaConsumer<byte[], byte[]> committedConsumer(String bootstrap) {
    Properties props = new Properties();
    props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    props.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "5000");
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    return new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer());
  }

  private static Admin admin(String bootstrap) {
    Properties props = new Properties();
    props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    return Admin.create(props);
  }

  /** The stamp of an output record's value. */
  static long outputStamp(ConsumerRecord<byte[], byte[]> record) {
    return ByteBuffer.wrap(record.value()).getLong(16);
  }
}
