package io.weir.benchmarks.kafka;

import io.weir.api.JobClient;
import io.weir.api.StreamEnvironment;
import io.weir.api.config.Configuration;
import io.weir.api.tuple.Tuple2;
import io.weir.api.tuple.Tuple3;
import io.weir.api.typeutils.Types;
import io.weir.benchmarks.ChildMain;
import io.weir.benchmarks.Engine;
import io.weir.benchmarks.JobArgs;
import io.weir.benchmarks.Result;
import io.weir.benchmarks.TempDir;
import io.weir.benchmarks.w1.WeirKeyedCount;
import io.weir.connector.kafka.DeliveryGuarantee;
import io.weir.connector.kafka.KafkaRecordSerializer;
import io.weir.connector.kafka.KafkaSink;
import io.weir.connector.kafka.KafkaSource;
import io.weir.connector.kafka.KafkaSourceBuilder;
import io.weir.connector.kafka.OffsetsInitializer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * KAFKA and KAFKA-LATENCY on Weir (embedded local cluster, parallelism 2, a checkpoint every
 * second) with weir-connector-kafka: the job of {@link KafkaBench}, the same as {@link
 * FlinkKafka}'s. The broker is a {@link KafkaServer} helper JVM started before the clock.
 *
 * <p>Arguments: {@code <exactly-once|at-least-once|latency-exactly-once|latency-at-least-once>
 * [records]}. Prints one {@link Result} line.
 */
public final class WeirKafka {
  private WeirKafka() {}

  public static void main(String[] args) {
    ChildMain.run(
        () -> {
          List<String> configs =
              Stream.concat(
                      KafkaBench.THROUGHPUT_CONFIGS.stream(), KafkaBench.LATENCY_CONFIGS.stream())
                  .toList();
          JobArgs job = JobArgs.parse(args, "KAFKA", configs, KafkaBench.DEFAULT_RECORDS);
          try (BrokerProcess broker = BrokerProcess.start();
              TempDir checkpoints = TempDir.create("weir-kafka-checkpoints-")) {
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
    StreamEnvironment env = environment(job.config(), bootstrap, checkpoints, true);
    long start = System.nanoTime();
    env.execute(KafkaBench.THROUGHPUT_ID);
    long nanos = System.nanoTime() - start;
    KafkaBench.Output output = KafkaBench.readOutput(bootstrap);
    return Result.of(Engine.WEIR, KafkaBench.THROUGHPUT_ID, job.config(), job.records(), nanos)
        .with("output", Long.toString(output.records()))
        .with("lingering", Integer.toString(output.lingering()));
  }

  private static Result latency(JobArgs job, String bootstrap, TempDir checkpoints)
      throws Exception {
    StreamEnvironment env = environment(job.config(), bootstrap, checkpoints, false);
    JobClient client = env.executeAsync(KafkaBench.LATENCY_ID);
    LatencyProbe.Figures figures;
    try {
      figures = LatencyProbe.run(bootstrap, job.records());
    } finally {
      client.cancel().get(1, TimeUnit.MINUTES);
    }
    return figures.result(Engine.WEIR, job.config());
  }

  /** The job: Kafka → keyed count → Kafka; {@code bounded}: up to the input's end at the start. */
  private static StreamEnvironment environment(
      String config, String bootstrap, TempDir checkpoints, boolean bounded) {
    Configuration conf = new Configuration();
    conf.setString("restart-strategy.type", "none");
    conf.setString("execution.checkpointing.interval", "1s");
    conf.setString("execution.checkpointing.dir", checkpoints.uri());
    StreamEnvironment env = StreamEnvironment.create(conf);
    env.setParallelism(2);
    KafkaBench.bufferTimeoutMs().ifPresent(ms -> env.setBufferTimeout(Duration.ofMillis(ms)));

    KafkaSourceBuilder<Tuple2<Long, Long>> source =
        KafkaSource.<Tuple2<Long, Long>>builder()
            .setBootstrapServers(bootstrap)
            .setTopics(KafkaBench.INPUT)
            .setGroupId(KafkaBench.GROUP_ID)
            .setStartingOffsets(OffsetsInitializer.earliest())
            .setProperties(KafkaBench.sourceConsumerProperties())
            .setDeserializer(
                record ->
                    Tuple2.of(
                        KafkaBench.inputKey(record.value()),
                        KafkaBench.inputStamp(record.value())));
    if (bounded) {
      source.setBounded(OffsetsInitializer.latest());
    }
    boolean exactlyOnce = KafkaBench.exactlyOnce(config);
    KafkaRecordSerializer<Tuple3<Long, Long, Long>> serializer =
        (element, timestamp) ->
            new ProducerRecord<>(
                KafkaBench.OUTPUT,
                null,
                null,
                KafkaBench.outputKey(element.f0),
                KafkaBench.outputValue(element.f0, element.f1, element.f2));
    env.fromSource(source.build(), "input", Types.TUPLE(Types.LONG, Types.LONG))
        .keyBy(t -> t.f0, Types.LONG)
        .process(new WeirKeyedCount.CountCarryingStamp())
        .returns(Types.TUPLE(Types.LONG, Types.LONG, Types.LONG))
        .sinkTo(
            KafkaSink.<Tuple3<Long, Long, Long>>builder()
                .setBootstrapServers(bootstrap)
                .setRecordSerializer(serializer)
                .setDeliveryGuarantee(
                    exactlyOnce ? DeliveryGuarantee.EXACTLY_ONCE : DeliveryGuarantee.AT_LEAST_ONCE)
                .setTransactionalIdPrefix(KafkaBench.TRANSACTIONAL_ID_PREFIX)
                .setKafkaProducerConfig(KafkaBench.sinkProducerProperties(exactlyOnce))
                .build());
    return env;
  }
}
