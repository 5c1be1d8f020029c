package io.weir.testjobs;

import static java.nio.charset.StandardCharsets.UTF_8;

import io.weir.api.CheckpointingMode;
import io.weir.api.RestartStrategy;
import io.weir.api.StreamEnvironment;
import io.weir.api.functions.Collector;
import io.weir.api.functions.KeyedProcessFunction;
import io.weir.api.functions.MapFunction;
import io.weir.api.functions.OpenContext;
import io.weir.api.state.ValueState;
import io.weir.api.state.ValueStateDescriptor;
import io.weir.api.typeutils.Types;
import io.weir.connector.kafka.DeliveryGuarantee;
import io.weir.connector.kafka.KafkaRecordDeserializer;
import io.weir.connector.kafka.KafkaRecordSerializer;
import io.weir.connector.kafka.KafkaSink;
import io.weir.connector.kafka.KafkaSource;
import io.weir.connector.kafka.OffsetsInitializer;
import java.time.Duration;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * A job shipped to the cluster as a jar: the numbers of a Kafka topic (bounded at the offsets seen
 * at start), throttled, keyed by {@code n % keys}, a count per key in keyed state, and {@code
 * n,key,count} per record into an exactly-once Kafka sink. Arguments: bootstrap servers, input
 * topic, output topic, keys, checkpoint storage URI, records per millisecond of sleep, and
 * optionally a gate file: the input then ends only once that file exists ({@link GatedEnd}).
 */
public final class KafkaCountJob {

  private KafkaCountJob() {}

  /** Sleeps a millisecond every {@code every} records, so the job runs long enough to be killed. */
  public static final class Throttle implements MapFunction<String, String> {
    private static final long serialVersionUID = 1L;
    private final int every;

    Throttle(int every) {
      this.every = every;
    }

    @Override
    public String map(String value) throws Exception {
      if (Long.parseLong(value) % every == 0) {
        Thread.sleep(1);
      }
      return value;
    }
  }

  /** Counts per key and emits {@code value,key,count}. */
  public static final class Count extends KeyedProcessFunction<Long, String, String> {
    private static final long serialVersionUID = 1L;
    private transient ValueState<Long> count;

    @Override
    public void open(OpenContext openContext) {
      count = getRuntimeContext().getState(new ValueStateDescriptor<>("count", Types.LONG));
    }

    @Override
    public void processElement(String value, Context ctx, Collector<String> out) throws Exception {
      Long current = count.value();
      long next = (current == null ? 0 : current) + 1;
      count.update(next);
      out.collect(value + "," + ctx.getCurrentKey() + "," + next);
    }
  }

  /**
   * {@code value,key,count} into {@code topic} with the key as the record key. A class, not {@code
   * KafkaRecordSerializer.of(topic, lambda, lambda)}: that nests the job's lambdas in one of the
   * connector's, which does not deserialize in a TaskManager under the job's class loader.
   */
  public static final class KeyedRecords implements KafkaRecordSerializer<String> {
    private static final long serialVersionUID = 1L;
    private final String topic;

    KeyedRecords(String topic) {
      this.topic = topic;
    }

    @Override
    public ProducerRecord<byte[], byte[]> serialize(String v, Long timestamp) {
      byte[] key = v.substring(v.indexOf(',') + 1, v.lastIndexOf(',')).getBytes(UTF_8);
      return new ProducerRecord<>(topic, null, timestamp, key, v.getBytes(UTF_8));
    }
  }

  public static void main(String[] args) throws Exception {
    String bootstrap = args[0];
    String input = args[1];
    String output = args[2];
    long keys = Long.parseLong(args[3]);
    String storage = args[4];
    int every = Integer.parseInt(args[5]);
    StreamEnvironment env = StreamEnvironment.create();
    env.enableCheckpointing(Duration.ofMillis(300), CheckpointingMode.EXACTLY_ONCE);
    env.getCheckpointConfig().setCheckpointStorage(storage);
    env.getCheckpointConfig().setCheckpointTimeout(Duration.ofSeconds(30));
    env.setRestartStrategy(RestartStrategy.fixedDelay(20, Duration.ofMillis(100)));
    var numbers =
        KafkaSource.<String>builder()
            .setBootstrapServers(bootstrap)
            .setTopics(input)
            .setBounded(OffsetsInitializer.latest())
            .setDeserializer(KafkaRecordDeserializer.valueAsString())
            .build();
    // With a gate file (a seventh argument) the input ends only once the file exists.
    var source =
        args.length > 6
            ? env.fromSource(new GatedEnd<>(numbers, args[6]), "numbers", Types.STRING)
            : env.fromSource(numbers, "numbers", Types.STRING);
    source
        .map(new Throttle(every))
        .name("Throttle")
        .keyBy(v -> Long.parseLong(v) % keys, Types.LONG)
        .process(new Count())
        .name("Count")
        .sinkTo(
            KafkaSink.<String>builder()
                .setBootstrapServers(bootstrap)
                .setDeliveryGuarantee(DeliveryGuarantee.EXACTLY_ONCE)
                .setTransactionalIdPrefix("cluster-count")
                .setProperty("transaction.timeout.ms", "60000")
                .setRecordSerializer(new KeyedRecords(output))
                .build())
        .name("Kafka");
    env.execute("kafka-count");
  }
}
