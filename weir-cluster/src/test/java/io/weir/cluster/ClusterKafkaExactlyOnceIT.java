package io.weir.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.weir.connector.kafka.KafkaBroker;
import java.nio.file.Path;
import java.time.Duration;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Kafka in, keyed count, exactly-once Kafka sink, on a JobManager and three one-slot TaskManager
 * processes (parallelism 2, so the keyed exchange crosses the data plane), with a real KRaft broker
 * in the test JVM: a TaskManager running the job is SIGKILLed twice, a replacement started each
 * time. A {@code read_committed} consumer then sees every input record exactly once with each key's
 * counts exactly 1..n, and the last stable offset reaches the end well before the transaction
 * timeout: the restored job aborted the killed TaskManager's open transactions by its ledger.
 */
class ClusterKafkaExactlyOnceIT {

  @RegisterExtension static final KafkaBroker KAFKA = new KafkaBroker();

  static final int RECORDS = 100_000;
  static final int PARTITIONS = 4;
  static final int KEYS = 101;
  static final int KILLS = 2;

  private static TestCluster cluster;
  private static String jarId;

  @BeforeAll
  static void startCluster() throws Exception {
    cluster =
        new TestCluster(
            "kafka",
            Map.of(
                ClusterOptions.HEARTBEAT_INTERVAL.key(), "250",
                ClusterOptions.HEARTBEAT_TIMEOUT.key(), "3000",
                ClusterOptions.SLOT_REQUEST_TIMEOUT.key(), "60000"));
    cluster.startJobManager();
    cluster.startTaskManagers(3, 1);
    jarId = cluster.client.upload(TestCluster.testJobJar(cluster.dir.resolve("job.jar"), null));
  }

  @AfterAll
  static void stopCluster() {
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void kafkaToKafkaSurvivesSigkillOfItsTaskManagersExactlyOnce() throws Exception {
    KAFKA.createTopic("cluster-in", PARTITIONS);
    KAFKA.createTopic("cluster-out", PARTITIONS);
    AtomicReference<Exception> failure = new AtomicReference<>();
    try (KafkaProducer<String, String> producer = KAFKA.producer()) {
      for (int i = 0; i < RECORDS; i++) {
        producer.send(
            new ProducerRecord<>("cluster-in", i % PARTITIONS, null, Integer.toString(i)),
            (m, e) -> {
              if (e != null) {
                failure.compareAndSet(null, e);
              }
            });
      }
      producer.flush();
    }
    assertThat(failure.get()).isNull();

    // The input ends only once the gate exists: the job cannot finish before its last kill.
    Path gate = cluster.dir.resolve("cluster-in.gate");
    String jobId =
        cluster.client.run(
            jarId,
            "io.weir.testjobs.KafkaCountJob",
            List.of(
                KAFKA.bootstrapServers(),
                "cluster-in",
                "cluster-out",
                String.valueOf(KEYS),
                cluster.dir.resolve("checkpoints").toUri().toString(),
                "10",
                gate.toString()),
            2,
            Map.of());
    cluster.killHostOfTimes(jobId, KILLS, gate);
    await()
        .atMost(Duration.ofSeconds(180))
        .pollInterval(Duration.ofMillis(200))
        .until(() -> List.of("FINISHED", "FAILED", "CANCELED").contains(cluster.jobState(jobId)));
    JsonNode job = cluster.client.get("/jobs/" + jobId);
    assertThat(job.path("state").asText()).as(job.toString()).isEqualTo("FINISHED");
    assertThat(job.path("metrics").path("job.restarts").asLong()).isGreaterThanOrEqualTo(KILLS);

    // Below the sink's 60 s transaction timeout: the killed attempts' transactions were aborted.
    KAFKA.awaitNoOpenTransaction("cluster-out", Duration.ofSeconds(30));
    List<String> lines = KAFKA.readCommitted("cluster-out");
    int[] times = new int[RECORDS];
    Map<Integer, BitSet> countsPerKey = new HashMap<>();
    int countedTwice = 0;
    for (String line : lines) {
      String[] parts = line.split(",");
      times[Integer.parseInt(parts[0])]++;
      BitSet counts = countsPerKey.computeIfAbsent(Integer.parseInt(parts[1]), k -> new BitSet());
      int count = Integer.parseInt(parts[2]);
      countedTwice += counts.get(count) ? 1 : 0;
      counts.set(count);
    }
    int missing = 0;
    int duplicated = 0;
    for (int t : times) {
      missing += t == 0 ? 1 : 0;
      duplicated += t > 1 ? 1 : 0;
    }
    assertThat(missing).as("input records missing from the output").isZero();
    assertThat(duplicated).as("input records more than once in the output").isZero();
    assertThat(countedTwice).as("counts emitted twice for a key").isZero();
    assertThat(lines).hasSize(RECORDS);
    for (int key = 0; key < KEYS; key++) {
      int n = RECORDS / KEYS + (key < RECORDS % KEYS ? 1 : 0);
      BitSet counts = countsPerKey.get(key);
      assertThat(counts.cardinality()).as("counts of key %s", key).isEqualTo(n);
      assertThat(counts.length()).as("highest count of key %s", key).isEqualTo(n + 1);
    }
  }
}
