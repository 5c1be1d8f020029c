package io.weir.runtime.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.weir.api.StreamEnvironment;
import io.weir.api.graph.Pipeline;
import io.weir.api.sink.DiscardingSink;
import io.weir.api.typeutils.Types;
import io.weir.runtime.checkpoint.TaskRestore.AssignedSplits;
import io.weir.runtime.graph.JobGraph;
import io.weir.runtime.graph.JobGraphBuilder;
import io.weir.runtime.graph.JobVertex;
import io.weir.runtime.state.DefaultOperatorStateStore.Mode;
import io.weir.runtime.storage.StreamStateHandle;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@link StateAssignment} hands a task's own state out by its typed fields: in-flight data to the
 * subtask that recorded it (never rescaled), a source's splits round robin with every split
 * watermark to every subtask on rescale, and an operator's lists apart from both.
 */
class StateAssignmentTest {

  private static final int MAX_PARALLELISM = 128;

  /** A source, then a keyed map chained to a sink: two vertices at {@code parallelism}. */
  private static JobGraph graph(int parallelism) {
    return graph(parallelism, parallelism);
  }

  /** The same two vertices, the source at {@code sources} and the map at {@code maps}. */
  private static JobGraph graph(int sources, int maps) {
    StreamEnvironment env = StreamEnvironment.create();
    env.setParallelism(maps);
    var sink =
        env.fromSequence(0, 99)
            .setParallelism(sources)
            .uid("numbers")
            .keyBy(v -> v % 7, Types.LONG)
            .map(v -> v)
            .uid("identity")
            .sinkTo(new DiscardingSink<>());
    return JobGraphBuilder.build(
        new Pipeline("assignment", List.of(sink.getTransformation()), env.getConfiguration()));
  }

  private static StreamStateHandle stream(String name) {
    return new StreamStateHandle.File("chk-5/" + name, 100, 0);
  }

  /** The map's old subtask {@code i}: one list of its own and in-flight data on both sides. */
  private static OperatorSubtaskState mapSubtask(int i) {
    StreamStateHandle inFlight = stream("in-flight-" + i);
    return new OperatorSubtaskState(
        null,
        new OperatorStateHandle(
            Map.of("buffer", new OperatorStateHandle.StateMetaInfo(Mode.SPLIT, new long[] {0})),
            stream("lists-" + i)),
        List.of(new InputChannelStateHandle(i, inFlight, new long[] {0, 10})),
        List.of(
            new ResultSubpartitionStateHandle(
                new ResultSubpartitionInfo(1, i), inFlight, new long[] {20})),
        null,
        false,
        null);
  }

  /** The source's old subtask {@code i} of {@code splits} splits and one split watermark. */
  private static OperatorSubtaskState sourceSubtask(int i, int splits) {
    long[] offsets = new long[splits];
    for (int s = 0; s < splits; s++) {
      offsets[s] = s * 10L;
    }
    return new OperatorSubtaskState(
        null,
        null,
        List.of(),
        List.of(),
        new SourceSplitsHandle(stream("splits-" + i), offsets, new long[] {90}),
        false,
        null);
  }

  private static CompletedCheckpoint checkpoint(
      JobGraph graph, List<OperatorSubtaskState> source, List<OperatorSubtaskState> map) {
    JobVertex sourceVertex = graph.vertices().get(0);
    JobVertex mapVertex = graph.vertices().get(1);
    return new CompletedCheckpoint(
        "job",
        5,
        0,
        false,
        List.of(
            new OperatorState(
                sourceVertex.getHead().getOperatorId(),
                sourceVertex.getHead().getName(),
                source.size(),
                MAX_PARALLELISM,
                source),
            new OperatorState(
                mapVertex.getHead().getOperatorId(),
                mapVertex.getHead().getName(),
                map.size(),
                MAX_PARALLELISM,
                map)));
  }

  private static List<TaskRestore> assign(JobVertex vertex, CompletedCheckpoint checkpoint) {
    List<AssignedSplits> fresh = new ArrayList<>();
    for (int i = 0; i < vertex.getParallelism(); i++) {
      fresh.add(AssignedSplits.NONE);
    }
    return StateAssignment.assign(vertex, MAX_PARALLELISM, checkpoint, null, true, fresh);
  }

  private static long offset(StateElement element) {
    return ((StateElement.Stored) element).offset();
  }

  @Test
  void inFlightDataGoesToTheSubtaskThatRecordedIt() {
    JobGraph graph = graph(2);
    JobVertex map = graph.vertices().get(1);
    CompletedCheckpoint cp =
        checkpoint(
            graph,
            List.of(sourceSubtask(0, 1), sourceSubtask(1, 1)),
            List.of(mapSubtask(0), mapSubtask(1)));

    List<TaskRestore> restores = assign(map, cp);

    for (int i = 0; i < 2; i++) {
      TaskRestore restore = restores.get(i);
      OperatorSubtaskState recorded = cp.operators().get(1).subtasks().get(i);
      assertThat(restore.inputChannelState())
          .containsExactlyElementsOf(recorded.inputChannelState());
      assertThat(restore.resultSubpartitionState())
          .containsExactlyElementsOf(recorded.resultSubpartitionState());
      assertThat(restore.operators().get(map.getHead().getOperatorId()).lists())
          .as("the operator's own lists, and only those")
          .containsOnlyKeys("buffer");
      assertThat(restore.splits()).isEqualTo(AssignedSplits.NONE);
    }
  }

  @Test
  void inFlightDataCannotBeRescaled() {
    JobGraph old = graph(2);
    CompletedCheckpoint cp =
        checkpoint(
            old,
            List.of(sourceSubtask(0, 1), sourceSubtask(1, 1)),
            List.of(mapSubtask(0), mapSubtask(1)));
    JobVertex map = graph(3).vertices().get(1);

    assertThatThrownBy(() -> assign(map, cp))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("Checkpoint 5 is unaligned")
        .hasMessageContaining("'" + map.getName() + "'")
        .hasMessageContaining("for parallelism 2")
        .hasMessageContaining("at parallelism 3");
  }

  @Test
  void inFlightInputCannotBeRestoredWhenItsUpstreamRescaled() {
    // The map keeps its parallelism, but its gate would have one channel where it recorded two:
    // the data recorded from the second source would never be replayed.
    CompletedCheckpoint cp =
        checkpoint(
            graph(2, 2),
            List.of(sourceSubtask(0, 1), sourceSubtask(1, 1)),
            List.of(mapSubtask(0), mapSubtask(1)));
    JobGraph rescaled = graph(1, 2);
    JobVertex map = rescaled.vertices().get(1);
    JobVertex source = rescaled.vertices().get(0);

    assertThatThrownBy(() -> assign(map, cp))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("Checkpoint 5 is unaligned")
        .hasMessageContaining("in-flight data of '" + map.getName() + "'")
        .hasMessageContaining("on its channels from '" + source.getName() + "' at parallelism 2")
        .hasMessageContaining("with '" + source.getName() + "' at parallelism 1")
        .hasMessageContaining("rescale from an aligned checkpoint");
  }

  @Test
  void inFlightOutputCannotBeRestoredWhenItsDownstreamRescaled() {
    StreamStateHandle overtaken = stream("overtaken");
    List<OperatorSubtaskState> sources = new ArrayList<>();
    for (int i = 0; i < 2; i++) {
      sources.add(
          new OperatorSubtaskState(
              null,
              null,
              List.of(),
              List.of(
                  new ResultSubpartitionStateHandle(
                      new ResultSubpartitionInfo(0, 1), overtaken, new long[] {0})),
              new SourceSplitsHandle(stream("splits-" + i), new long[] {0}, new long[] {90}),
              false,
              null));
    }
    OperatorSubtaskState noState = OperatorSubtaskState.EMPTY;
    CompletedCheckpoint cp = checkpoint(graph(2, 2), sources, List.of(noState, noState));
    JobGraph rescaled = graph(2, 3);

    assertThatThrownBy(() -> assign(rescaled.vertices().get(0), cp))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("on its channels to '" + rescaled.vertices().get(1).getName() + "'")
        .hasMessageContaining("at parallelism 2")
        .hasMessageContaining("at parallelism 3");
    assertThat(assign(rescaled.vertices().get(1), cp))
        .as("the map itself recorded nothing in flight, so it rescales")
        .hasSize(3);
  }

  @Test
  void inFlightInputCannotBeRestoredFromAnUpstreamTheCheckpointDoesNotHold() {
    JobGraph graph = graph(2, 2);
    JobVertex map = graph.vertices().get(1);
    CompletedCheckpoint cp =
        new CompletedCheckpoint(
            "job",
            5,
            0,
            false,
            List.of(
                new OperatorState(
                    map.getHead().getOperatorId(),
                    map.getHead().getName(),
                    2,
                    MAX_PARALLELISM,
                    List.of(mapSubtask(0), mapSubtask(1)))));

    assertThatThrownBy(() -> assign(map, cp))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("on its channels from '" + graph.vertices().get(0).getName() + "'")
        .hasMessageContaining("which the checkpoint does not hold");
  }

  @Test
  void anOperatorWithoutInFlightDataRescales() {
    OperatorSubtaskState own =
        new OperatorSubtaskState(
            null,
            new OperatorStateHandle(
                Map.of(
                    "buffer",
                    new OperatorStateHandle.StateMetaInfo(Mode.SPLIT, new long[] {0, 4, 8})),
                stream("lists")),
            false);
    CompletedCheckpoint cp = checkpoint(graph(1), List.of(sourceSubtask(0, 1)), List.of(own));
    JobVertex map = graph(3).vertices().get(1);

    List<TaskRestore> restores = assign(map, cp);

    assertThat(restores)
        .allSatisfy(
            r -> {
              assertThat(r.inputChannelState()).isEmpty();
              assertThat(r.resultSubpartitionState()).isEmpty();
              assertThat(
                      r.operators()
                          .get(map.getHead().getOperatorId())
                          .lists()
                          .get("buffer")
                          .elements())
                  .hasSize(1);
            });
  }

  @Test
  void splitsStayWithTheirSubtaskAtTheSameParallelism() {
    JobGraph graph = graph(2);
    JobVertex source = graph.vertices().get(0);
    CompletedCheckpoint cp =
        checkpoint(
            graph,
            List.of(sourceSubtask(0, 3), sourceSubtask(1, 1)),
            List.of(mapSubtask(0), mapSubtask(1)));

    List<TaskRestore> restores = assign(source, cp);

    assertThat(restores.get(0).splits().splits()).hasSize(3);
    assertThat(restores.get(1).splits().splits()).hasSize(1);
    assertThat(restores.get(0).splits().watermarks()).hasSize(1);
    assertThat(restores.get(1).splits().watermarks()).hasSize(1);
    assertThat(restores.get(0).operators()).as("a source has no operator restore").isEmpty();
    assertThat(restores.get(0).inputChannelState()).isEmpty();
  }

  @Test
  void splitsAreDealtRoundRobinOnRescaleAndEverySubtaskGetsEveryWatermark() {
    CompletedCheckpoint cp =
        checkpoint(
            graph(2),
            List.of(sourceSubtask(0, 3), sourceSubtask(1, 2)),
            List.of(
                new OperatorSubtaskState(null, null, false),
                new OperatorSubtaskState(null, null, false)));
    JobVertex source = graph(3).vertices().get(0);

    List<TaskRestore> restores = assign(source, cp);

    // Old order: subtask 0's splits at 0, 10, 20, then subtask 1's at 0, 10.
    assertThat(restores.get(0).splits().splits())
        .extracting(StateAssignmentTest::offset)
        .containsExactly(0L, 0L);
    assertThat(restores.get(1).splits().splits())
        .extracting(StateAssignmentTest::offset)
        .containsExactly(10L, 10L);
    assertThat(restores.get(2).splits().splits())
        .extracting(StateAssignmentTest::offset)
        .containsExactly(20L);
    assertThat(restores).allSatisfy(r -> assertThat(r.splits().watermarks()).hasSize(2));
  }

  @Test
  void aSplitWatermarkAmongTheSplitsOfAnOldCheckpointIsReadAsAWatermark() {
    byte[] split = SerializedSplits.element(3, new byte[] {1});
    byte[] legacyWatermark =
        SerializedSplits.element(SerializedSplits.LEGACY_WATERMARK_VERSION, new byte[] {2});
    byte[] watermark = SerializedSplits.element(SerializedSplits.WATERMARK_VERSION, new byte[] {3});

    SerializedSplits read =
        SerializedSplits.read(List.of(split, legacyWatermark), List.of(watermark));

    assertThat(read.splits()).containsExactly(split);
    assertThat(read.watermarks()).containsExactly(watermark, legacyWatermark);
    assertThat(read.watermarks()).allMatch(SerializedSplits::isReadableWatermark);
  }
}
