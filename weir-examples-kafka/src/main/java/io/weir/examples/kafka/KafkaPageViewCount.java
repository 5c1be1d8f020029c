package io.weir.examples.kafka;

import io.weir.api.DataStream;
import io.weir.api.StreamEnvironment;
import io.weir.api.eventtime.WatermarkStrategy;
import io.weir.api.functions.Collector;
import io.weir.api.functions.KeyedProcessFunction;
import io.weir.api.functions.OpenContext;
import io.weir.api.state.ValueState;
import io.weir.api.state.ValueStateDescriptor;
import io.weir.api.typeutils.Types;
import io.weir.api.util.ParameterTool;
import io.weir.connector.kafka.DeliveryGuarantee;
import io.weir.connector.kafka.KafkaRecordDeserializer;
import io.weir.connector.kafka.KafkaRecordSerializer;
import io.weir.connector.kafka.KafkaSink;
import io.weir.connector.kafka.KafkaSource;
import io.weir.connector.kafka.OffsetsInitializer;
import java.time.Duration;

/**
 * Kafka in, Kafka out, exactly once: reads page views from a topic (each record's value is the
 * page, e.g. {@code /home}), counts the views of each page in keyed state, and writes {@code
 * PAGE,COUNT} to another topic in Kafka transactions.
 *
 * <p>Exactly once end to end: the source's offsets are part of every checkpoint, and the sink
 * writes each checkpoint's records in a transaction that it commits only once the checkpoint is
 * complete. A consumer of the output topic with {@code isolation.level=read_committed} sees every
 * view counted once, also across failures and restarts. The transactions commit with the
 * checkpoints, so the output appears at most {@code --checkpoint-interval} late.
 *
 * <p>Parameters:
 *
 * <ul>
 *   <li>{@code --bootstrap-servers HOST:PORT}: the Kafka cluster (default {@code localhost:9092});
 *   <li>{@code --input-topic NAME}: the page views (default {@code page-views});
 *   <li>{@code --output-topic NAME}: the counts (default {@code page-view-counts});
 *   <li>{@code --group-id NAME}: the consumer group, for monitoring the lag (default {@code
 *       page-view-count});
 *   <li>{@code --checkpoint-interval MS} (default 5000) and {@code --checkpoint-dir URI};
 *   <li>{@code --transaction-timeout-ms MS}: the sink's {@code transaction.timeout.ms} (default
 *       900000, the broker's default most).
 * </ul>
 *
 * <p>Both topics must exist. Run it with {@code ./weir run
 * weir-examples-kafka/target/weir-examples-kafka-*.jar --bootstrap-servers localhost:9092}.
 */
public final class KafkaPageViewCount {

  private KafkaPageViewCount() {}

  /** Counts the views of its key's page and emits {@code PAGE,COUNT}. */
  public static final class CountViews extends KeyedProcessFunction<String, String, String> {
    private static final long serialVersionUID = 1L;
    private transient ValueState<Long> views;

    @Override
    public void open(OpenContext openContext) {
      views = getRuntimeContext().getState(new ValueStateDescriptor<>("views", Types.LONG));
    }

    @Override
    public void processElement(String page, Context ctx, Collector<String> out) throws Exception {
      Long current = views.value();
      long next = current == null ? 1 : current + 1;
      views.update(next);
      out.collect(page + "," + next);
    }
  }

  /** The pipeline: the input topic's pages in, {@code PAGE,COUNT} into the output topic. */
  public static void build(StreamEnvironment env, ParameterTool params) {
    String servers = params.get("bootstrap-servers", "localhost:9092");
    String output = params.get("output-topic", "page-view-counts");

    KafkaSource<String> source =
        KafkaSource.<String>builder()
            .setBootstrapServers(servers)
            .setTopics(params.get("input-topic", "page-views"))
            .setGroupId(params.get("group-id", "page-view-count"))
            // Where a job without a checkpoint or savepoint starts; a restore starts at the
            // offsets in its checkpoint instead.
            .setStartingOffsets(OffsetsInitializer.earliest())
            .setDeserializer(KafkaRecordDeserializer.valueAsString())
            .build();

    DataStream<String> pages =
        env.fromSource(source, WatermarkStrategy.noWatermarks(), "Page Views", Types.STRING)
            .uid("kafka-page-views");

    pages
        .map(String::strip)
        .returns(Types.STRING)
        .uid("strip")
        .keyBy(page -> page, Types.STRING)
        .process(new CountViews())
        .uid("count-views")
        .name("Count Views")
        .sinkTo(
            KafkaSink.<String>builder()
                .setBootstrapServers(servers)
                .setRecordSerializer(KafkaRecordSerializer.valueAsString(output))
                .setDeliveryGuarantee(DeliveryGuarantee.EXACTLY_ONCE)
                // Names this job's transactions: unique per job writing to the Kafka cluster.
                .setTransactionalIdPrefix(params.get("group-id", "page-view-count"))
                // A transaction stays open until the checkpoint after its records completes, and
                // across a restart: longer than the checkpoint interval, timeout and restart
                // delay together, and at most the broker's transaction.max.timeout.ms (15 min).
                .setProperty(
                    "transaction.timeout.ms", params.get("transaction-timeout-ms", "900000"))
                .build())
        .uid("kafka-counts");
  }

  public static void main(String[] args) throws Exception {
    ParameterTool params = ParameterTool.fromArgs(args);
    StreamEnvironment env = StreamEnvironment.create();
    // The sink commits its transactions with the checkpoints: without checkpoints, no output.
    env.enableCheckpointing(Duration.ofMillis(params.getLong("checkpoint-interval", 5000)));
    if (params.has("checkpoint-dir")) {
      env.getCheckpointConfig().setCheckpointStorage(params.getRequired("checkpoint-dir"));
    }
    build(env, params);
    env.execute("kafka-page-view-count");
  }
}
