package io.weir.runtime.local;

import static org.assertj.core.api.Assertions.assertThat;

import io.weir.api.JobClient;
import io.weir.api.StreamEnvironment;
import io.weir.api.config.Configuration;
import io.weir.api.config.CoreOptions;
import io.weir.api.config.MemorySize;
import io.weir.api.functions.RichMapFunction;
import io.weir.runtime.api.CollectSink;
import io.weir.runtime.api.PartitioningTest.Hop;
import io.weir.runtime.api.PartitioningTest.TagDown;
import io.weir.runtime.api.PartitioningTest.TagUp;
import io.weir.runtime.jobmaster.JobMaster;
import io.weir.runtime.network.InputChannel;
import io.weir.runtime.task.InputStreamTask;
import io.weir.runtime.task.StreamTask;
import io.weir.runtime.taskexecutor.TaskExecutor;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@code rescale()} is a pointwise connection, as in Flink: each consumer subtask has input
 * channels from exactly the producer subtasks that feed it (and so waits for barriers and end of
 * partition from those only), each producer one channel per consumer it feeds, and the records
 * follow.
 */
// Reads the gates of local execution's one in-process task executor.
@Timeout(60)
class RescaleWiringTest {

  // Static, as the functions are shipped by serialization; fresh for each run.
  static volatile CountDownLatch arrived;
  static volatile CountDownLatch release;

  private static final Pattern SUBTASK = Pattern.compile("\\((\\d+)/(\\d+)\\)$");

  /** Producers, consumers, and per consumer the producers that feed it (Flink's pointwise). */
  static Stream<Arguments> ratios() {
    return Stream.of(
        Arguments.of(2, 4, List.of(Set.of(0), Set.of(0), Set.of(1), Set.of(1))),
        Arguments.of(4, 2, List.of(Set.of(0, 1), Set.of(2, 3))),
        Arguments.of(3, 2, List.of(Set.of(0), Set.of(1, 2))),
        Arguments.of(2, 3, List.of(Set.of(0), Set.of(0), Set.of(1))));
  }

  @ParameterizedTest(name = "{0} to {1}")
  @MethodSource("ratios")
  void eachConsumerIsConnectedToItsOwnProducersOnly(
      int producers, int consumers, List<Set<Integer>> producersOf) throws Exception {
    arrived = new CountDownLatch(consumers);
    release = new CountDownLatch(1);
    // Small buffers: the held consumers back-pressure their producers, which stay running.
    Configuration conf = new Configuration();
    conf.set(CoreOptions.NETWORK_BUFFER_SIZE, new MemorySize(1024));
    StreamEnvironment env = StreamEnvironment.create(conf);
    env.setParallelism(consumers);
    CollectSink<Hop> sink = new CollectSink<>();
    int n = 20_000;
    env.fromSequence(1, n)
        .setParallelism(producers)
        .map(new TagUp())
        .name("up")
        .setParallelism(producers)
        .rescale()
        .map(new TagDown())
        .name("down")
        .map(new HoldFirst())
        .sinkTo(sink);
    JobClient client = env.executeAsync("rescale-" + producers + "-" + consumers);
    try {
      // Every consumer holds its first record: all tasks are wired and running.
      assertThat(arrived.await(30, TimeUnit.SECONDS)).isTrue();
      List<StreamTask> tasks = ((TaskExecutor) ((JobMaster) client).taskExecutor()).runningTasks();

      Map<Integer, Set<Integer>> channelsOf = new HashMap<>();
      Map<Integer, Integer> channelCount = new HashMap<>();
      for (StreamTask task : tasks) {
        if (task.getVertex().getName().startsWith("down")) {
          Set<Integer> from = new TreeSet<>();
          List<InputChannel> channels = ((InputStreamTask) task).getInputGate().getChannels();
          for (InputChannel channel : channels) {
            from.add(producerIndex(channel.getProducerDescription(), producers));
          }
          int index = task.getTaskInfo().indexOfThisSubtask();
          channelsOf.put(index, from);
          channelCount.put(index, channels.size());
        }
      }
      Map<Integer, Set<Integer>> expected = new HashMap<>();
      Map<Integer, Integer> expectedCount = new HashMap<>();
      for (int c = 0; c < consumers; c++) {
        expected.put(c, producersOf.get(c));
        expectedCount.put(c, producersOf.get(c).size());
      }
      assertThat(channelsOf)
          .as("the producers each consumer has channels from")
          .isEqualTo(expected);
      assertThat(channelCount).as("one channel per producer").isEqualTo(expectedCount);

      Set<Integer> producersSeen = new TreeSet<>();
      for (StreamTask task : tasks) {
        if (task.getVertex().getName().endsWith("up")) {
          int p = task.getTaskInfo().indexOfThisSubtask();
          producersSeen.add(p);
          long fed = producersOf.stream().filter(s -> s.contains(p)).count();
          assertThat(task.getWriters()).hasSize(1);
          assertThat(task.getWriters().get(0).getNumberOfChannels())
              .as("channels of producer %s", p)
              .isEqualTo((int) fed);
        }
      }
      assertThat(producersSeen).hasSize(producers);
    } finally {
      release.countDown();
    }
    client.getJobExecutionResult().get(30, TimeUnit.SECONDS);

    List<Hop> hops = sink.results();
    List<Long> values = new ArrayList<>();
    Map<Integer, Set<Integer>> recordsFrom = new HashMap<>();
    for (Hop h : hops) {
      values.add(h.value());
      recordsFrom.computeIfAbsent(h.down(), k -> new TreeSet<>()).add(h.up());
    }
    assertThat(values).hasSize(n).doesNotHaveDuplicates();
    for (int c = 0; c < consumers; c++) {
      assertThat(recordsFrom.get(c))
          .as("the producers whose records consumer %s got", c)
          .isEqualTo(producersOf.get(c));
    }
  }

  private static int producerIndex(String description, int producers) {
    Matcher m = SUBTASK.matcher(description);
    assertThat(m.find()).as(description).isTrue();
    assertThat(Integer.parseInt(m.group(2))).isEqualTo(producers);
    return Integer.parseInt(m.group(1)) - 1;
  }

  /** Holds its subtask's first record until the test has looked at the wiring. */
  public static final class HoldFirst extends RichMapFunction<Hop, Hop> {
    private static final long serialVersionUID = 1L;
    private transient boolean held;

    @Override
    public Hop map(Hop hop) throws InterruptedException {
      if (!held) {
        held = true;
        arrived.countDown();
        if (!release.await(30, TimeUnit.SECONDS)) {
          throw new IllegalStateException("the test never released the first record");
        }
      }
      return hop;
    }
  }
}
