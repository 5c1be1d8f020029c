package io.weir.runtime.graph;

import static org.assertj.core.api.Assertions.assertThat;

import io.weir.api.DataStreamSink;
import io.weir.api.StreamEnvironment;
import io.weir.api.graph.Pipeline;
import io.weir.api.sink.DiscardingSink;
import io.weir.api.typeutils.Types;
import java.util.List;
import org.junit.jupiter.api.Test;

class PlanDescriptionTest {

  private static JobGraph plan(String mapName, int keyedParallelism) {
    StreamEnvironment env = StreamEnvironment.create();
    env.setParallelism(2);
    DataStreamSink<Long> sink =
        env.fromSequence(1, 10)
            .uid("numbers")
            .map(n -> n * 2)
            .name(mapName)
            .keyBy(n -> n % 3, Types.LONG)
            .reduce(Long::sum)
            .setParallelism(keyedParallelism)
            .sinkTo(new DiscardingSink<>())
            .setParallelism(keyedParallelism);
    return JobGraphBuilder.build(
        new Pipeline("plan", List.of(sink.getTransformation()), env.getConfiguration()));
  }

  @Test
  void theSameProgramDescribesTheSamePlan() {
    List<String> first = PlanDescription.of(plan("double", 2));
    List<String> second = PlanDescription.of(plan("double", 2));

    assertThat(second).isEqualTo(first);
    assertThat(PlanDescription.firstDifference(first, second)).isEmpty();
    assertThat(first)
        .anyMatch(l -> l.contains("operator 'double'") && l.contains("parallelism 2"))
        .anyMatch(l -> l.startsWith("edge from 'double'") && l.contains("Hash"));
  }

  @Test
  void anOperatorNamedOtherwiseIsTheFirstDifference() {
    List<String> expected = PlanDescription.of(plan("double", 2));
    List<String> actual = PlanDescription.of(plan("double-1234", 2));

    assertThat(PlanDescription.firstDifference(expected, actual))
        .hasValueSatisfying(
            d ->
                assertThat(d)
                    .matches(
                        "expected vertex 0 '[^']*double': .*, but built vertex 0"
                            + " '[^']*double-1234': .*"));
  }

  @Test
  void anotherParallelismIsADifference() {
    assertThat(
            PlanDescription.firstDifference(
                PlanDescription.of(plan("double", 2)), PlanDescription.of(plan("double", 1))))
        .hasValueSatisfying(d -> assertThat(d).contains("parallelism 2").contains("parallelism 1"));
  }

  @Test
  void aShorterPlanIsADifference() {
    List<String> expected = List.of("a", "b");

    assertThat(PlanDescription.firstDifference(expected, List.of("a")))
        .hasValue("expected b, but built nothing more");
    assertThat(PlanDescription.firstDifference(List.of("a"), expected))
        .hasValue("expected nothing more, but built b");
  }
}
