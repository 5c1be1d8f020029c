package io.weir.examples.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.weir.api.JobClient;
import io.weir.api.RestartStrategy;
import io.weir.api.StreamEnvironment;
import io.weir.api.util.ParameterTool;
import io.weir.connector.kafka.KafkaBroker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The Kafka example against a real broker: every view counted once, in committed output. */
class KafkaPageViewCountTest {

  @RegisterExtension static final KafkaBroker KAFKA = new KafkaBroker();

  @Test
  void countsEveryPageViewOnceIntoTheOutputTopic() throws Exception {
    KAFKA.createTopic("page-views", 2);
    KAFKA.createTopic("page-view-counts", 1);
    String[] pages = {"/home", "/cart", "/help"};
    Map<String, Long> expected = new HashMap<>();
    for (int partition = 0; partition < 2; partition++) {
      List<String> views = new ArrayList<>();
      for (int i = 0; i < 150; i++) {
        String page = pages[(i + partition) % pages.length];
        views.add(page);
        expected.merge(page, 1L, Long::sum);
      }
      KAFKA.produce("page-views", partition, views);
    }

    StreamEnvironment env = StreamEnvironment.create();
    env.setParallelism(2);
    env.enableCheckpointing(Duration.ofMillis(100));
    // The test broker allows transactions of at most 5 minutes: a shorter checkpoint timeout and
    // restart delay let the sink's transactions be 1 minute.
    env.getCheckpointConfig().setCheckpointTimeout(Duration.ofSeconds(30));
    env.setRestartStrategy(RestartStrategy.fixedDelay(3, Duration.ZERO));
    KafkaPageViewCount.build(
        env,
        ParameterTool.fromArgs(
            new String[] {
              "--bootstrap-servers", KAFKA.bootstrapServers(), "--transaction-timeout-ms", "60000"
            }));
    JobClient job = env.executeAsync("kafka-page-view-count");
    try {
      // Committed with the checkpoints: all 300 counts once a checkpoint after the last view.
      await()
          .atMost(Duration.ofSeconds(60))
          .until(() -> KAFKA.readCommitted("page-view-counts").size() >= 300);
    } finally {
      job.cancel().get(60, TimeUnit.SECONDS);
    }

    List<String> counts = KAFKA.readCommitted("page-view-counts");
    assertThat(counts).hasSize(300).doesNotHaveDuplicates();
    Map<String, Long> last = new HashMap<>();
    for (String line : counts) {
      String[] fields = line.split(",");
      last.merge(fields[0], Long.parseLong(fields[1]), Math::max);
    }
    assertThat(last).isEqualTo(expected);
  }
}
