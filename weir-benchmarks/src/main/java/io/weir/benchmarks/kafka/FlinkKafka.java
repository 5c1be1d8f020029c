package io.weir.benchmarks.kafka;

import io.weir.benchmarks.ChildMain;
import io.weir.benchmarks.Engine;
import io.weir.benchmarks.JobArgs;
import io.weir.benchmarks.Result;
import io.weir.benchmarks.TempDir;
import io.weir.benchmarks.w1.FlinkKeyedCount;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.api.java.tuple.Tuple3;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.apache.flink.connector.kafka.sink.KafkaRecordSerializationSchema;
import org.apache.flink.connector.kafka.sink.KafkaSink;
import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.connector.kafka.source.KafkaSourceBuilder;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.flink.connector.kafka.source.reader.deserializer.KafkaRecordDeserializationSchema;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.util.Collector;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * KAFKA and KAFKA-LATENCY on Apache Flink 2.x (local mini cluster, parallelism 2, a checkpoint
 * every second) with {@code flink-connector-kafka}: the job of {@link KafkaBench}, the same as
 * {@link WeirKafka}'s. The broker is a {@link KafkaServer} helper JVM started before the clock.
 *
 * <p>Arguments: {@code <exactly-once|at-least-once|latency-exactly-once|latency-at-least-once>
 * [records]}. Prints one {@link Result} line.
 */
public final class FlinkKafka {
  private FlinkKafka() {}

  public static void main(String[] args) {
    ChildMain.run(
        () -> {
          List<String> configs =
              Stream.concat(
                      KafkaBench.THROUGHPUT_CONFIGS.stream(), KafkaBench.LATENCY_CONFIGS.stream())
                  .toList();
          JobArgs job = JobArgs.parse(args, "KAFKA", configs, KafkaBench.DEFAULT_RECORDS);
          try (BrokerProcess broker = BrokerProcess.start();
              TempDir checkpoints = TempDir.create("flink-kafka-checkpoints-")) {
            String bootstrap = broker.bootstrapServers();
            KafkaBench.createTopics(bootstrap);
            KafkaBench.prepareInternalTopics(bootstrap);
            if (KafkaBench.latency(job.config())) {
              latency(job, bootstrap, checkpoints).print();
            } else {
              throughput(job, bootstrap, checkpoints).print();
            }
          }
        });
  }

  private static Result throughput(JobArgs job, String bootstrap, TempDir checkpoints)
      throws Exception {
    KafkaBench.fillInput(bootstrap, job.records());
    StreamExecutionEnvironment env = environment(job.config(), bootstrap, checkpoints, true);
    long start = System.nanoTime();
    env.execute(KafkaBench.THROUGHPUT_ID);
    long nanos = System.nanoTime() - start;
    KafkaBench.Output output = KafkaBench.readOutput(bootstrap);
    return Result.of(Engine.FLINK, KafkaBench.THROUGHPUT_ID, job.config(), job.records(), nanos)
        .with("output", Long.toString(output.records()))
        .with("lingering", Integer.toString(output.lingering()));
  }

  private static Result latency(JobArgs job, String bootstrap, TempDir checkpoints)
      throws Exception {
    StreamExecutionEnvironment env = environment(job.config(), bootstrap, checkpoints, false);
    JobClient client = env.executeAsync(KafkaBench.LATENCY_ID);
    LatencyProbe.Figures figures;
    try {
      figures = LatencyProbe.run(bootstrap, job.records());
    } finally {
      client.cancel().get(1, TimeUnit.MINUTES);
    }
    return figures.result(Engine.FLINK, job.config());
  }

  /** The job: Kafka → keyed count → Kafka; {@code bounded}: up to the input's end at the start. */
  private static StreamExecutionEnvironment environment(
      String config, String bootstrap, TempDir checkpoints, boolean bounded) {
    StreamExecutionEnvironment env =
        StreamExecutionEnvironment.getExecutionEnvironment(
            Configuration.fromMap(
                Map.of(
                    "restart-strategy.type", "none",
                    "execution.checkpointing.interval", "1s",
                    "execution.checkpointing.dir", checkpoints.uri())));
    env.setParallelism(2);
    KafkaBench.bufferTimeoutMs().ifPresent(env::setBufferTimeout);

    KafkaSourceBuilder<Tuple2<Long, Long>> source =
        KafkaSource.<Tuple2<Long, Long>>builder()
            .setBootstrapServers(bootstrap)
            .setTopics(KafkaBench.INPUT)
            .setGroupId(KafkaBench.GROUP_ID)
            .setStartingOffsets(OffsetsInitializer.earliest())
            .setProperties(KafkaBench.sourceConsumerProperties())
            .setDeserializer(new InputDeserializer());
    if (bounded) {
      source.setBounded(OffsetsInitializer.latest());
    }
    boolean exactlyOnce = KafkaBench.exactlyOnce(config);
    env.fromSource(source.build(), WatermarkStrategy.noWatermarks(), "input")
        .keyBy(t -> t.f0, Types.LONG)
        .process(new FlinkKeyedCount.CountCarryingStamp())
        .sinkTo(
            KafkaSink.<Tuple3<Long, Long, Long>>builder()
                .setBootstrapServers(bootstrap)
                .setRecordSerializer(new OutputSerializer())
                .setDeliveryGuarantee(
                    exactlyOnce ? DeliveryGuarantee.EXACTLY_ONCE : DeliveryGuarantee.AT_LEAST_ONCE)
                .setTransactionalIdPrefix(KafkaBench.TRANSACTIONAL_ID_PREFIX)
                .setKafkaProducerConfig(KafkaBench.sinkProducerProperties(exactlyOnce))
                .build());
    return env;
  }

  /** An input record's value as {@code (key, stamp)}. */
  static final class InputDeserializer
      implements KafkaRecordDeserializationSchema<Tuple2<Long, Long>> {
    private static final long serialVersionUID = 1L;

    @Override
    public void deserialize(
        ConsumerRecord<byte[], byte[]> record, Collector<Tuple2<Long, Long>> out) {
      out.collect(
          Tuple2.of(KafkaBench.inputKey(record.value()), KafkaBench.inputStamp(record.value())));
    }

    @Override
    public TypeInformation<Tuple2<Long, Long>> getProducedType() {
      return Types.TUPLE(Types.LONG, Types.LONG);
    }
  }

  /**
   * {@code (key, count, stamp)} as an output record, the key as Kafka key (it picks the partition).
   */
  static final class OutputSerializer
      implements KafkaRecordSerializationSchema<Tuple3<Long, Long, Long>> {
    private static final long serialVersionUID = 1L;

    @Override
    public ProducerRecord<byte[], byte[]> serialize(
        Tuple3<Long, Long, Long> element, KafkaSinkContext context, Long timestamp) {
      return new ProducerRecord<>(
          KafkaBench.OUTPUT,
          null,
          null,
          KafkaBench.outputKey(element.f0),
          KafkaBench.outputValue(element.f0, element.f1, element.f2));
    }
  }
}
