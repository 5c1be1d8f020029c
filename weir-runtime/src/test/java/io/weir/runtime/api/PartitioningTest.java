package io.weir.runtime.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.weir.api.StreamEnvironment;
import io.weir.api.functions.RichMapFunction;
import io.weir.runtime.state.KeyGroupRangeAssignment;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Each partitioner, observed through the subtask index ({@code getIndexOfThisSubtask()}) of a rich
 * map function downstream.
 */
@Timeout(30)
public class PartitioningTest {

  /**
   * An element with the subtask indexes it passed: {@code up} upstream, {@code down} downstream (-1
   * while unknown).
   */
  public record Hop(long value, int up, int down) {}

  /** Records the upstream subtask index. */
  public static final class TagUp extends RichMapFunction<Long, Hop> {
    private static final long serialVersionUID = 1L;

    @Override
    public Hop map(Long value) {
      return new Hop(value, getRuntimeContext().getIndexOfThisSubtask(), -1);
    }
  }

  /** Records the downstream subtask index. */
  public static final class TagDown extends RichMapFunction<Hop, Hop> {
    private static final long serialVersionUID = 1L;

    @Override
    public Hop map(Hop hop) {
      return new Hop(hop.value(), hop.up(), getRuntimeContext().getIndexOfThisSubtask());
    }
  }

  /** Emits the element with the subtask index of this map. */
  public static final class TagLong extends RichMapFunction<Long, Hop> {
    private static final long serialVersionUID = 1L;

    @Override
    public Hop map(Long value) {
      return new Hop(value, -1, getRuntimeContext().getIndexOfThisSubtask());
    }
  }

  private static StreamEnvironment env(int parallelism) {
    StreamEnvironment env = StreamEnvironment.create();
    env.setParallelism(parallelism);
    return env;
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 2, 4})
  void forwardKeepsTheSubtaskIndex(int parallelism) throws Exception {
    StreamEnvironment env = env(parallelism);
    CollectSink<Hop> sink = new CollectSink<>();
    env.fromSequence(1, 200).map(new TagUp()).forward().map(new TagDown()).sinkTo(sink);
    env.execute("forward");

    List<Hop> hops = sink.results();
    assertThat(hops).extracting(Hop::value).containsExactlyInAnyOrderElementsOf(numbers(1, 200));
    assertThat(hops).allSatisfy(h -> assertThat(h.down()).isEqualTo(h.up()));
    assertThat(hops).extracting(Hop::up).containsOnlyElementsOf(indexes(parallelism));
  }

  @ParameterizedTest
  @ValueSource(ints = {2, 3})
  void forwardThroughAUnionKeepsTheSubtaskIndex(int parallelism) throws Exception {
    // Forward into an operator that cannot be chained (a union has several inputs): the data
    // crosses the network on pointwise channels, subtask i to subtask i.
    StreamEnvironment env = env(parallelism);
    CollectSink<Hop> sink = new CollectSink<>();
    var a = env.fromSequence(1, 100).map(new TagUp()).forward();
    var b = env.fromSequence(1001, 1100).map(new TagUp()).forward();
    a.union(b).map(new TagDown()).sinkTo(sink);
    env.execute("forward-union");

    List<Hop> hops = sink.results();
    List<Long> expected = numbers(1, 100);
    expected.addAll(numbers(1001, 1100));
    assertThat(hops).extracting(Hop::value).containsExactlyInAnyOrderElementsOf(expected);
    assertThat(hops).allSatisfy(h -> assertThat(h.down()).isEqualTo(h.up()));
  }

  @ParameterizedTest
  @ValueSource(ints = {2, 3, 4})
  void rebalanceSpreadsEvenly(int parallelism) throws Exception {
    StreamEnvironment env = env(parallelism);
    CollectSink<Hop> sink = new CollectSink<>();
    int n = 103;
    env.fromSequence(1, n).setParallelism(1).rebalance().map(new TagLong()).sinkTo(sink);
    env.execute("rebalance");

    List<Hop> hops = sink.results();
    assertThat(hops).extracting(Hop::value).containsExactlyInAnyOrderElementsOf(numbers(1, n));
    Map<Integer, Long> perSubtask =
        hops.stream().collect(Collectors.groupingBy(Hop::down, Collectors.counting()));
    assertThat(perSubtask).containsOnlyKeys(indexes(parallelism));
    for (long count : perSubtask.values()) {
      assertThat(count).isBetween((long) (n / parallelism), (long) (n / parallelism + 1));
    }
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 2, 4})
  void broadcastDeliversEveryElementToEverySubtask(int parallelism) throws Exception {
    StreamEnvironment env = env(parallelism);
    CollectSink<Hop> sink = new CollectSink<>();
    env.fromSequence(1, 25).setParallelism(1).broadcast().map(new TagLong()).sinkTo(sink);
    env.execute("broadcast");

    List<Hop> expected = new ArrayList<>();
    for (long v = 1; v <= 25; v++) {
      for (int i = 0; i < parallelism; i++) {
        expected.add(new Hop(v, -1, i));
      }
    }
    assertThat(sink.results()).containsExactlyInAnyOrderElementsOf(expected);
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 2, 3, 4})
  void keyBySendsEachKeyToTheSubtaskOwningItsKeyGroup(int parallelism) throws Exception {
    StreamEnvironment env = env(parallelism);
    CollectSink<Hop> sink = new CollectSink<>();
    // Two source subtasks, so each key arrives from several producers.
    env.fromSequence(1, 400).setParallelism(2).keyBy(x -> x % 37).map(new TagLong()).sinkTo(sink);
    env.execute("keyBy");

    List<Hop> hops = sink.results();
    assertThat(hops).extracting(Hop::value).containsExactlyInAnyOrderElementsOf(numbers(1, 400));
    Map<Long, Set<Integer>> subtasksOfKey = new HashMap<>();
    for (Hop h : hops) {
      subtasksOfKey.computeIfAbsent(h.value() % 37, k -> new HashSet<>()).add(h.down());
    }
    assertThat(subtasksOfKey).hasSize(37);
    subtasksOfKey.forEach(
        (key, subtasks) ->
            assertThat(subtasks)
                .as("subtasks of key %s", key)
                .containsExactly(
                    KeyGroupRangeAssignment.assignKeyToParallelOperator(key, 128, parallelism)));
    if (parallelism > 1) {
      // 37 keys do not all land in one subtask.
      assertThat(hops).extracting(Hop::down).containsOnlyElementsOf(indexes(parallelism));
      assertThat(hops.stream().map(Hop::down).distinct().count()).isGreaterThan(1);
    }
  }

  @ParameterizedTest
  @ValueSource(ints = {2, 4})
  void keyByWithStringKeysAndMaxParallelism(int parallelism) throws Exception {
    StreamEnvironment env = env(parallelism);
    env.setMaxParallelism(16);
    CollectSink<String> sink = new CollectSink<>();
    env.fromSequence(1, 100)
        .map(x -> "key-" + (x % 11))
        .keyBy(s -> s, io.weir.api.typeutils.Types.STRING)
        .map(new TagString())
        .sinkTo(sink);
    env.execute("keyBy-strings");

    Map<String, Set<Integer>> subtasksOfKey = new HashMap<>();
    for (String s : sink.results()) {
      String[] parts = s.split("@", -1);
      subtasksOfKey.computeIfAbsent(parts[0], k -> new HashSet<>()).add(Integer.parseInt(parts[1]));
    }
    assertThat(subtasksOfKey).hasSize(11);
    assertThat(sink.results()).hasSize(100);
    subtasksOfKey.forEach(
        (key, subtasks) ->
            assertThat(subtasks)
                .as("subtasks of key %s", key)
                .containsExactly(
                    KeyGroupRangeAssignment.assignKeyToParallelOperator(key, 16, parallelism)));
  }

  @ParameterizedTest
  @ValueSource(ints = {2, 4})
  void keyByIntoAnOperatorWithItsOwnMaxParallelismUsesItsKeyGroups(int parallelism)
      throws Exception {
    StreamEnvironment env = env(parallelism); // pipeline.max-parallelism stays 128
    CollectSink<String> sink = new CollectSink<>();
    env.fromSequence(1, 100)
        .map(x -> "key-" + (x % 11))
        .keyBy(s -> s, io.weir.api.typeutils.Types.STRING)
        .map(new TagString())
        .setMaxParallelism(16)
        .sinkTo(sink);
    env.execute("keyBy-operator-max-parallelism");

    assertThat(sink.results()).hasSize(100);
    for (String s : sink.results()) {
      String[] parts = s.split("@", -1);
      assertThat(Integer.parseInt(parts[1]))
          .as("subtask of %s", parts[0])
          .isEqualTo(
              KeyGroupRangeAssignment.assignKeyToParallelOperator(parts[0], 16, parallelism));
    }
  }

  @Test
  void shuffleSendsEveryElementOnceToSomeSubtask() throws Exception {
    StreamEnvironment env = env(4);
    CollectSink<Hop> sink = new CollectSink<>();
    int n = 2_000;
    env.fromSequence(1, n).setParallelism(1).shuffle().map(new TagLong()).sinkTo(sink);
    env.execute("shuffle");

    List<Hop> hops = sink.results();
    assertThat(hops).extracting(Hop::value).containsExactlyInAnyOrderElementsOf(numbers(1, n));
    // Uniformly random: each of 4 subtasks gets about 500; fewer than 300 has odds below 1e-30.
    Map<Integer, Long> perSubtask =
        hops.stream().collect(Collectors.groupingBy(Hop::down, Collectors.counting()));
    assertThat(perSubtask).containsOnlyKeys(indexes(4));
    assertThat(perSubtask.values()).allSatisfy(c -> assertThat(c).isGreaterThan(300L));
  }

  @Test
  void rescaleFromTwoToFourFeedsEachProducersOwnPairOfConsumers() throws Exception {
    StreamEnvironment env = env(4);
    CollectSink<Hop> sink = new CollectSink<>();
    env.fromSequence(1, 400)
        .setParallelism(2)
        .map(new TagUp())
        .setParallelism(2)
        .rescale()
        .map(new TagDown())
        .sinkTo(sink);
    env.execute("rescale-up");

    List<Hop> hops = sink.results();
    assertThat(hops).extracting(Hop::value).containsExactlyInAnyOrderElementsOf(numbers(1, 400));
    Map<Integer, Set<Integer>> consumersOf = new HashMap<>();
    for (Hop h : hops) {
      consumersOf.computeIfAbsent(h.up(), k -> new HashSet<>()).add(h.down());
    }
    assertThat(consumersOf).containsOnlyKeys(0, 1);
    assertThat(consumersOf.get(0)).containsExactlyInAnyOrder(0, 1);
    assertThat(consumersOf.get(1)).containsExactlyInAnyOrder(2, 3);
  }

  @Test
  void rescaleFromFourToTwoSendsNeighboursToOneConsumer() throws Exception {
    StreamEnvironment env = env(4);
    CollectSink<Hop> sink = new CollectSink<>();
    env.fromSequence(1, 400)
        .map(new TagUp())
        .rescale()
        .map(new TagDown())
        .setParallelism(2)
        .sinkTo(sink);
    env.execute("rescale-down");

    List<Hop> hops = sink.results();
    assertThat(hops).extracting(Hop::value).containsExactlyInAnyOrderElementsOf(numbers(1, 400));
    assertThat(hops).allSatisfy(h -> assertThat(h.down()).isEqualTo(h.up() / 2));
  }

  @Test
  void globalSendsEverythingToTheFirstSubtask() throws Exception {
    StreamEnvironment env = env(3);
    CollectSink<Hop> sink = new CollectSink<>();
    env.fromSequence(1, 300).map(new TagUp()).global().map(new TagDown()).sinkTo(sink);
    env.execute("global");

    List<Hop> hops = sink.results();
    assertThat(hops).extracting(Hop::value).containsExactlyInAnyOrderElementsOf(numbers(1, 300));
    assertThat(hops).extracting(Hop::up).contains(0, 1, 2);
    assertThat(hops).allSatisfy(h -> assertThat(h.down()).isZero());
  }

  /** Emits {@code element@subtaskIndex}. */
  public static final class TagString extends RichMapFunction<String, String> {
    private static final long serialVersionUID = 1L;

    @Override
    public String map(String value) {
      return value + "@" + getRuntimeContext().getIndexOfThisSubtask();
    }
  }

  private static List<Long> numbers(long from, long to) {
    List<Long> list = new ArrayList<>();
    for (long i = from; i <= to; i++) {
      list.add(i);
    }
    return list;
  }

  private static List<Integer> indexes(int parallelism) {
    List<Integer> list = new ArrayList<>();
    for (int i = 0; i < parallelism; i++) {
      list.add(i);
    }
    return list;
  }
}
