package io.weir.connector.kafka;

import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.Future;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.NewPartitions;
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
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.metadata.storage.Formatter;
import org.apache.kafka.server.common.MetadataVersion;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A real single-node Kafka (combined broker and controller, KRaft) inside the test JVM on
 * 127.0.0.1, one per test class: {@code @RegisterExtension static final KafkaBroker KAFKA = new
 * KafkaBroker()}. Its log lives under the build's temporary directory and is deleted at the end.
 */
public final class KafkaBroker implements BeforeAllCallback, AfterAllCallback {

  /** The broker's {@code transaction.max.timeout.ms}: 5 minutes, below Kafka's 15. */
  static final long TRANSACTION_MAX_TIMEOUT_MS = Duration.ofMinutes(5).toMillis();

  private KafkaRaftServer server;
  private Path logDir;
  private String bootstrapServers;
  private Admin admin;

  public String bootstrapServers() {
    return bootstrapServers;
  }

  public Admin admin() {
    return admin;
  }

  @Override
  public void beforeAll(ExtensionContext context) throws Exception {
    logDir = Files.createTempDirectory("kafka-" + context.getDisplayName());
    int brokerPort = freePort();
    int controllerPort = freePort();
    Properties props = new Properties();
    props.put("process.roles", "broker,controller");
    props.put("node.id", "1");
    props.put("controller.quorum.voters", "1@127.0.0.1:" + controllerPort);
    props.put(
        "listeners",
        "PLAINTEXT://127.0.0.1:" + brokerPort + ",CONTROLLER://127.0.0.1:" + controllerPort);
    props.put("advertised.listeners", "PLAINTEXT://127.0.0.1:" + brokerPort);
    props.put("controller.listener.names", "CONTROLLER");
    props.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
    props.put("inter.broker.listener.name", "PLAINTEXT");
    props.put("log.dirs", logDir.toString());
    props.put("offsets.topic.replication.factor", "1");
    props.put("offsets.topic.num.partitions", "2");
    props.put("transaction.state.log.replication.factor", "1");
    props.put("transaction.state.log.min.isr", "1");
    props.put("transaction.state.log.num.partitions", "2");
    props.put("transaction.max.timeout.ms", String.valueOf(TRANSACTION_MAX_TIMEOUT_MS));
    props.put("group.initial.rebalance.delay.ms", "0");
    // Time out transactions promptly, for the tests of transactions the broker aborted.
    props.put("transaction.abort.timed.out.transaction.cleanup.interval.ms", "500");
    props.put("auto.create.topics.enable", "false");
    props.put("num.partitions", "1");
    props.put("log.segment.bytes", String.valueOf(64 * 1024 * 1024));
    KafkaConfig config = KafkaConfig.fromProps(props);
    new Formatter()
        .setPrintStream(
            new PrintStream(OutputStream.nullOutputStream(), true, StandardCharsets.UTF_8))
        .setNodeId(1)
        .setClusterId(Uuid.randomUuid().toString())
        .setDirectories(List.of(logDir.toString()))
        .setMetadataLogDirectory(logDir.toString())
        .setControllerListenerName("CONTROLLER")
        .setReleaseVersion(MetadataVersion.latestProduction())
        .run();
    server = new KafkaRaftServer(config, Time.SYSTEM);
    server.startup();
    bootstrapServers = "127.0.0.1:" + brokerPort;
    Properties adminProps = new Properties();
    adminProps.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    admin = Admin.create(adminProps);
    await()
        .atMost(Duration.ofMinutes(1))
        .ignoreExceptions()
        .until(() -> !admin.describeCluster().nodes().get().isEmpty());
  }

  @Override
  public void afterAll(ExtensionContext context) throws Exception {
    if (admin != null) {
      admin.close(Duration.ofSeconds(5));
    }
    if (server != null) {
      server.shutdown();
      server.awaitShutdown();
    }
    if (logDir != null) {
      deleteRecursively(logDir);
    }
  }

  public void createTopic(String topic, int partitions) throws Exception {
    admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1))).all().get();
    await()
        .atMost(Duration.ofSeconds(30))
        .ignoreExceptions()
        .until(
            () ->
                admin
                        .describeTopics(List.of(topic))
                        .allTopicNames()
                        .get()
                        .get(topic)
                        .partitions()
                        .size()
                    == partitions);
  }

  void addPartitions(String topic, int totalPartitions) throws Exception {
    admin.createPartitions(Map.of(topic, NewPartitions.increaseTo(totalPartitions))).all().get();
  }

  /** Writes {@code values} into {@code partition} of {@code topic} and waits for the acks. */
  public void produce(String topic, int partition, Collection<String> values) throws Exception {
    try (KafkaProducer<String, String> producer = producer()) {
      List<Future<RecordMetadata>> acks = new ArrayList<>();
      for (String value : values) {
        acks.add(producer.send(new ProducerRecord<>(topic, partition, null, value)));
      }
      for (Future<RecordMetadata> ack : acks) {
        ack.get();
      }
    }
  }

  /** Properties that reach this broker, for a producer the test builds itself. */
  Properties producerProperties() {
    Properties props = new Properties();
    props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    return props;
  }

  public KafkaProducer<String, String> producer() {
    Properties props = new Properties();
    props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    props.put(ProducerConfig.ACKS_CONFIG, "all");
    props.put(ProducerConfig.LINGER_MS_CONFIG, "5");
    props.put(ProducerConfig.BATCH_SIZE_CONFIG, String.valueOf(256 * 1024));
    return new KafkaProducer<>(props, new StringSerializer(), new StringSerializer());
  }

  /** Every record of {@code topic} that a {@code read_committed} consumer sees, as UTF-8 text. */
  public List<String> readCommitted(String topic) throws Exception {
    Map<TopicPartition, Long> end = endOffsets(topic, IsolationLevel.READ_COMMITTED);
    Properties props = new Properties();
    props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    props.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "5000");
    List<String> values = new ArrayList<>();
    try (KafkaConsumer<byte[], byte[]> consumer =
        new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      consumer.assign(end.keySet());
      consumer.seekToBeginning(end.keySet());
      Map<TopicPartition, Long> remaining = new HashMap<>(end);
      remaining.values().removeIf(offset -> offset == 0);
      for (TopicPartition tp : Set.copyOf(remaining.keySet())) {
        if (consumer.position(tp) >= end.get(tp)) {
          remaining.remove(tp);
        }
      }
      while (!remaining.isEmpty()) {
        for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(200))) {
          values.add(new String(record.value(), StandardCharsets.UTF_8));
        }
        for (TopicPartition tp : Set.copyOf(remaining.keySet())) {
          if (consumer.position(tp) >= end.get(tp)) {
            remaining.remove(tp);
          }
        }
      }
    }
    return values;
  }

  /** Waits until the broker has aborted the transaction of {@code transactionalId}. */
  void awaitAborted(String transactionalId, Duration atMost) {
    await()
        .atMost(atMost)
        .until(
            () ->
                admin
                        .describeTransactions(List.of(transactionalId))
                        .all()
                        .get()
                        .get(transactionalId)
                        .state()
                    == org.apache.kafka.clients.admin.TransactionState.COMPLETE_ABORT);
  }

  /**
   * Waits until no transaction holds back {@code topic}: its last stable offset equals its high
   * watermark on every partition (the commit markers are written after the commit returns).
   */
  public void awaitNoOpenTransaction(String topic, Duration atMost) {
    // Asked before and after every harness run, where it usually holds at once: checked at once,
    // not after Awaitility's default first delay of 100 ms.
    await()
        .pollDelay(Duration.ZERO)
        .pollInterval(Duration.ofMillis(20))
        .atMost(atMost)
        .until(
            () ->
                endOffsets(topic, IsolationLevel.READ_COMMITTED)
                    .equals(endOffsets(topic, IsolationLevel.READ_UNCOMMITTED)));
  }

  /**
   * The end offsets of every partition: for {@code READ_COMMITTED} the last stable offset, for
   * {@code READ_UNCOMMITTED} the high watermark.
   */
  public Map<TopicPartition, Long> endOffsets(String topic, IsolationLevel isolation)
      throws Exception {
    int partitions =
        admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic).partitions().size();
    Map<TopicPartition, OffsetSpec> request = new HashMap<>();
    for (int p = 0; p < partitions; p++) {
      request.put(new TopicPartition(topic, p), OffsetSpec.latest());
    }
    Map<TopicPartition, Long> result = new HashMap<>();
    admin
        .listOffsets(request, new ListOffsetsOptions(isolation))
        .all()
        .get()
        .forEach((tp, info) -> result.put(tp, info.offset()));
    return result;
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
      return socket.getLocalPort();
    }
  }

  private static void deleteRecursively(Path dir) throws IOException {
    try (var paths = Files.walk(dir)) {
      for (Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }
}
