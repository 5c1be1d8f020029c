package io.weir.runtime.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.weir.api.DataStreamSink;
import io.weir.api.RuntimeExecutionMode;
import io.weir.api.SingleOutputStreamOperator;
import io.weir.api.StreamEnvironment;
import io.weir.api.config.CoreOptions;
import io.weir.api.graph.Pipeline;
import io.weir.api.sink.DiscardingSink;
import io.weir.api.typeutils.Types;
import io.weir.runtime.graph.JobGraph;
import io.weir.runtime.graph.JobGraphBuilder;
import io.weir.runtime.graph.JobVertex;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Where the job graph builder breaks chains, as Flink does: {@code disableChaining()}, {@code
 * startNewChain()}, {@code env.disableOperatorChaining()} and slot sharing groups; and what each
 * vertex's max parallelism and group are.
 */
@Timeout(30)
class ChainingControlsTest {

  /** Source -> Map "double" -> Filter "odd-free" -> Map "inc" -> sink, as {@code shape} sets. */
  private static JobGraph graph(StreamEnvironment env, UnaryOperator<Shape> shape) {
    Shape s = shape.apply(new Shape());
    var source = env.fromSequence(1, 10);
    var doubled = source.map(n -> n * 2).name("double");
    s.onDouble.accept(doubled);
    var filtered = doubled.filter(n -> n % 2 == 0).name("even");
    s.onEven.accept(filtered);
    var incremented = filtered.map(n -> n + 1).name("inc");
    s.onInc.accept(incremented);
    DataStreamSink<Long> sink = incremented.sinkTo(new DiscardingSink<>()).name("sink");
    return JobGraphBuilder.build(
        new Pipeline("chaining", List.of(sink.getTransformation()), env.getConfiguration()));
  }

  /** What to call on each operator. */
  private static final class Shape {
    Consumer<SingleOutputStreamOperator<Long>> onDouble = o -> {};
    Consumer<SingleOutputStreamOperator<Long>> onEven = o -> {};
    Consumer<SingleOutputStreamOperator<Long>> onInc = o -> {};
  }

  private static List<String> vertexNames(JobGraph graph) {
    return graph.vertices().stream().map(JobVertex::getName).toList();
  }

  @Test
  void byDefaultForwardEdgesOfEqualParallelismChainIntoOneTask() {
    JobGraph graph = graph(StreamEnvironment.create(), s -> s);

    assertThat(vertexNames(graph))
        .containsExactly("Source: Sequence Source -> double -> even -> inc -> sink");
    assertThat(graph.vertices().get(0).getSlotSharingGroup()).isEqualTo("default");
  }

  @Test
  void disableChainingRunsTheOperatorInATaskOfItsOwn() {
    JobGraph graph =
        graph(
            StreamEnvironment.create(),
            s -> {
              s.onEven = o -> o.disableChaining();
              return s;
            });

    assertThat(vertexNames(graph))
        .containsExactly("Source: Sequence Source -> double", "even", "inc -> sink");
  }

  @Test
  void startNewChainBreaksBeforeTheOperatorOnly() {
    JobGraph graph =
        graph(
            StreamEnvironment.create(),
            s -> {
              s.onEven = o -> o.startNewChain();
              return s;
            });

    assertThat(vertexNames(graph))
        .containsExactly("Source: Sequence Source -> double", "even -> inc -> sink");
  }

  @Test
  void disableOperatorChainingRunsEveryOperatorAlone() {
    StreamEnvironment env = StreamEnvironment.create();
    env.disableOperatorChaining();

    JobGraph graph = graph(env, s -> s);

    assertThat(env.getConfiguration().get(CoreOptions.OPERATOR_CHAINING)).isFalse();
    assertThat(vertexNames(graph))
        .containsExactly("Source: Sequence Source", "double", "even", "inc", "sink");
  }

  @Test
  void anOperatorInAnotherSlotSharingGroupStartsAChainThatItsSuccessorsJoin() {
    JobGraph graph =
        graph(
            StreamEnvironment.create(),
            s -> {
              s.onEven = o -> o.slotSharingGroup("heavy");
              return s;
            });

    assertThat(vertexNames(graph))
        .containsExactly("Source: Sequence Source -> double", "even -> inc -> sink");
    assertThat(graph.vertices())
        .extracting(JobVertex::getSlotSharingGroup)
        .containsExactly("default", "heavy");
  }

  @Test
  void anOperatorBackInTheDefaultGroupBreaksTheChainAgain() {
    JobGraph graph =
        graph(
            StreamEnvironment.create(),
            s -> {
              s.onEven = o -> o.slotSharingGroup("heavy");
              s.onInc = o -> o.slotSharingGroup("default");
              return s;
            });

    assertThat(vertexNames(graph))
        .containsExactly("Source: Sequence Source -> double", "even", "inc -> sink");
    assertThat(graph.vertices())
        .extracting(JobVertex::getSlotSharingGroup)
        .containsExactly("default", "heavy", "default");
  }

  @Test
  void anOperatorsMaxParallelismIsItsVertexsAndBoundsItsParallelism() {
    StreamEnvironment env = StreamEnvironment.create();
    env.setParallelism(2);
    var keyed = env.fromSequence(1, 10).keyBy(n -> n % 3, Types.LONG).reduce(Long::sum).name("sum");
    keyed.setMaxParallelism(8);
    DataStreamSink<Long> sink = keyed.sinkTo(new DiscardingSink<>());
    JobGraph graph =
        JobGraphBuilder.build(
            new Pipeline(
                "max-parallelism", List.of(sink.getTransformation()), env.getConfiguration()));

    assertThat(graph.vertices())
        .extracting(JobVertex::getName, JobVertex::getMaxParallelism)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple("Source: Sequence Source", 128),
            org.assertj.core.groups.Tuple.tuple("sum -> Sink", 8));

    keyed.setParallelism(9);
    assertThatThrownBy(
            () ->
                JobGraphBuilder.build(
                    new Pipeline(
                        "too-wide", List.of(sink.getTransformation()), env.getConfiguration())))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "The parallelism 9 of operator 'sum' is above its max parallelism 8. Lower the"
                + " parallelism, or raise the max parallelism with setMaxParallelism(n) on the"
                + " operator.");
    assertThatThrownBy(() -> keyed.setMaxParallelism(0))
        .hasMessageContaining("The max parallelism of operator 'sum' must be between 1 and 32768");
  }

  @Test
  void batchModeIsRefusedNamingTheSetting() {
    StreamEnvironment env = StreamEnvironment.create();
    assertThatThrownBy(() -> env.setRuntimeMode(RuntimeExecutionMode.BATCH))
        .isInstanceOf(UnsupportedOperationException.class)
        .hasMessageStartingWith("execution.runtime-mode: BATCH is not supported");

    env.setRuntimeMode(RuntimeExecutionMode.STREAMING);
    env.getConfiguration().set(CoreOptions.RUNTIME_MODE, RuntimeExecutionMode.BATCH);
    env.fromSequence(1, 3).sinkTo(new DiscardingSink<>());
    assertThatThrownBy(env::execute)
        .isInstanceOf(UnsupportedOperationException.class)
        .hasMessageContaining("execution.runtime-mode");
  }
}
