package io.weir.benchmarks.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

import io.weir.benchmarks.Engine;
import io.weir.benchmarks.Result;
import io.weir.benchmarks.Workloads;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;

/** KAFKA's and KAFKA-LATENCY's wiring and arithmetic, without a broker or a job. */
class KafkaBenchTest {

  @Test
  void theRunnerKnowsBothWorkloadsOnBothEngines() {
    assertThat(Workloads.byId("kafka").configs()).containsExactly("exactly-once", "at-least-once");
    assertThat(Workloads.byId("kafka-latency").configs())
        .containsExactly("latency-exactly-once", "latency-at-least-once");
    assertThat(Workloads.KAFKA.timed()).isFalse();
    assertThat(Workloads.KAFKA_LATENCY.timed()).isTrue();
    for (var workload :
        new io.weir.benchmarks.Workload[] {Workloads.KAFKA, Workloads.KAFKA_LATENCY}) {
      assertThat(workload.main(Engine.WEIR)).contains(WeirKafka.class);
      assertThat(workload.main(Engine.FLINK)).contains(FlinkKafka.class);
      assertThat(workload.main(Engine.PLAIN)).isEmpty();
    }
  }

  @Test
  void aConfigurationSaysItsSinkAndWhetherItMeasuresLatency() {
    assertThat(KafkaBench.exactlyOnce("exactly-once")).isTrue();
    assertThat(KafkaBench.exactlyOnce("latency-exactly-once")).isTrue();
    assertThat(KafkaBench.exactlyOnce("at-least-once")).isFalse();
    assertThat(KafkaBench.latency("latency-at-least-once")).isTrue();
    assertThat(KafkaBench.latency("at-least-once")).isFalse();
  }

  @Test
  void recordsCarryKeyCountAndStampBigEndian() {
    byte[] input = KafkaBench.inputValue(42, -7);
    assertThat(KafkaBench.inputKey(input)).isEqualTo(42);
    assertThat(KafkaBench.inputStamp(input)).isEqualTo(-7);
    ConsumerRecord<byte[], byte[]> output =
        new ConsumerRecord<>(
            KafkaBench.OUTPUT, 0, 0, KafkaBench.outputKey(42), KafkaBench.outputValue(42, 3, 99));
    assertThat(KafkaBench.outputStamp(output)).isEqualTo(99);
    assertThat(KafkaBench.key(1)).isBetween(0L, 99_999L);
  }

  @Test
  void bothSinksGetTheSameProducerSettings() {
    assertThat(KafkaBench.sinkProducerProperties(true))
        .containsEntry("acks", "all")
        .containsEntry("linger.ms", "5")
        .containsEntry("batch.size", "16384")
        .containsEntry("transaction.timeout.ms", "900000");
    assertThat(KafkaBench.sinkProducerProperties(false))
        .doesNotContainKey("transaction.timeout.ms");
  }

  @Test
  void percentilesAreNearestRankOverTheSortedLatencies() {
    long[] sorted = new long[100];
    for (int i = 0; i < sorted.length; i++) {
      sorted[i] = (i + 1) * 1_000_000L; // 1 ms .. 100 ms
    }
    LatencyProbe.Figures figures = new LatencyProbe.Figures(100, 100, 5_000_000_000L, sorted);

    Result result = figures.result(Engine.WEIR, "latency-exactly-once");

    assertThat(result.workload()).isEqualTo("KAFKA-LATENCY");
    assertThat(result.recordsPerSecond()).isEqualTo(20.0);
    assertThat(result.extra())
        .containsExactly(
            entry("p50Ms", "50.0"),
            entry("p99Ms", "99.0"),
            entry("maxMs", "100.0"),
            entry("seen", "100"));
  }
}
