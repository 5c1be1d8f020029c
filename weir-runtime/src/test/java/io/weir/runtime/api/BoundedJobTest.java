package io.weir.runtime.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.weir.api.JobExecutionResult;
import io.weir.api.StreamEnvironment;
import io.weir.api.functions.Collector;
import io.weir.api.tuple.Tuple2;
import io.weir.api.typeutils.Types;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** A bounded word-count job ends by itself with an exact output and a JobExecutionResult. */
@Timeout(30)
public class BoundedJobTest {

  private static final List<String> TEXT =
      List.of(
          "To be, or not to be, that is the question:",
          "Whether 'tis nobler in the mind to suffer",
          "The slings and arrows of outrageous fortune,",
          "Or to take arms against a sea of troubles",
          "And by opposing end them. To die: to sleep;");

  @ParameterizedTest
  @ValueSource(ints = {1, 2, 4})
  void wordCountHasTheExactOutput(int parallelism) throws Exception {
    StreamEnvironment env = StreamEnvironment.create();
    env.setParallelism(parallelism);
    CollectSink<Tuple2<String, Long>> sink = new CollectSink<>();
    env.fromCollection(TEXT)
        .flatMap(
            (String line, Collector<Tuple2<String, Long>> out) -> {
              for (String word : line.toLowerCase(Locale.ROOT).split("\\W+", -1)) {
                if (!word.isEmpty()) {
                  out.collect(Tuple2.of(word, 1L));
                }
              }
            })
        .returns(Types.TUPLE(Types.STRING, Types.LONG))
        .name("Tokenizer")
        .keyBy(t -> t.f0, Types.STRING)
        .sum(1)
        .name("Count")
        .sinkTo(sink)
        .name("Collect");

    long before = System.nanoTime();
    JobExecutionResult result = env.execute("word-count");
    long elapsedMillis = (System.nanoTime() - before) / 1_000_000;

    // Expected, computed independently: (w, 1), (w, 2), ..., (w, count(w)) for every word w.
    Map<String, Long> counts = new TreeMap<>();
    for (String line : TEXT) {
      for (String w : line.toLowerCase(Locale.ROOT).split("[^a-z0-9_]+", -1)) {
        if (!w.isEmpty()) {
          counts.merge(w, 1L, Long::sum);
        }
      }
    }
    List<Tuple2<String, Long>> expected = new ArrayList<>();
    counts.forEach(
        (w, c) -> {
          for (long i = 1; i <= c; i++) {
            expected.add(Tuple2.of(w, i));
          }
        });
    assertThat(counts).containsEntry("to", 6L).containsEntry("the", 3L);
    assertThat(sink.results()).containsExactlyInAnyOrderElementsOf(expected);

    assertThat(result).isNotNull();
    assertThat(result.getJobID()).isNotNull();
    assertThat(result.getNetRuntime()).isBetween(0L, elapsedMillis + 1);
    long words = expected.size();
    // A vertex's records out are what it sends to the network: the source vertex sends every word
    // when the tokenizer is chained to it (parallelism 1), else every line to the tokenizer's; the
    // Count vertex (chained with the sink) reads every word and sends nothing on. Vertex names are
    // Flink's "A -> B" chain names.
    boolean tokenizerChained =
        result.metrics().keySet().stream()
            .anyMatch(k -> k.startsWith("Source: Collection Source -> Tokenizer"));
    assertThat(metric(result, "Source: Collection Source", ".numRecordsOut"))
        .isEqualTo(tokenizerChained ? words : TEXT.size());
    assertThat(metric(result, "Count", ".numRecordsIn")).isEqualTo(words);
    assertThat(metric(result, "Count", ".numRecordsOut")).isZero();
  }

  private static long metric(JobExecutionResult result, String vertexPrefix, String suffix) {
    List<Map.Entry<String, Long>> matching =
        result.metrics().entrySet().stream()
            .filter(e -> e.getKey().startsWith(vertexPrefix) && e.getKey().endsWith(suffix))
            .toList();
    assertThat(matching).as("metrics %s", result.metrics()).hasSize(1);
    return matching.get(0).getValue();
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 3})
  void twoJobsFromOneEnvironmentRunOneAfterTheOther(int parallelism) throws Exception {
    StreamEnvironment env = StreamEnvironment.create();
    env.setParallelism(parallelism);
    CollectSink<Long> first = new CollectSink<>();
    env.fromSequence(1, 10).sinkTo(first);
    JobExecutionResult r1 = env.execute("first");

    // execute clears the plan, as in Flink: the second job runs only the new pipeline.
    CollectSink<Long> second = new CollectSink<>();
    env.fromSequence(11, 15).sinkTo(second);
    JobExecutionResult r2 = env.execute("second");

    assertThat(first.results()).containsExactlyInAnyOrder(1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L, 10L);
    assertThat(second.results()).containsExactlyInAnyOrder(11L, 12L, 13L, 14L, 15L);
    assertThat(r1.getJobID()).isNotEqualTo(r2.getJobID());
  }
}
