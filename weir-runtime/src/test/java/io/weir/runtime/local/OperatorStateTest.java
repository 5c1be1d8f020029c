package io.weir.runtime.local;

import static org.assertj.core.api.Assertions.assertThat;

import io.weir.api.StreamEnvironment;
import io.weir.api.functions.CheckpointedFunction;
import io.weir.api.functions.OpenContext;
import io.weir.api.functions.RichMapFunction;
import io.weir.api.functions.SinkFunction;
import io.weir.api.state.FunctionInitializationContext;
import io.weir.api.state.FunctionSnapshotContext;
import io.weir.api.state.ListState;
import io.weir.api.state.ListStateDescriptor;
import io.weir.api.typeutils.Types;
import io.weir.runtime.testing.matrix.TestMatrix;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.junit.jupiter.api.Test;

/** Operator state is initialized before open and holds its elements per subtask. */
@TestMatrix
class OperatorStateTest {

  static final Queue<String> EVENTS = new ConcurrentLinkedQueue<>();

  static final class Buffering extends RichMapFunction<Long, Long> implements CheckpointedFunction {
    private static final long serialVersionUID = 1L;
    private transient ListState<Long> seen;
    private transient boolean initialized;

    @Override
    public void initializeState(FunctionInitializationContext context) throws Exception {
      assertThat(context.isRestored()).isFalse();
      seen =
          context
              .getOperatorStateStore()
              .getListState(new ListStateDescriptor<>("seen", Types.LONG));
      initialized = true;
    }

    @Override
    public void open(OpenContext openContext) {
      EVENTS.add("open after init: " + initialized);
    }

    @Override
    public Long map(Long value) throws Exception {
      seen.add(value);
      List<Long> all = new ArrayList<>();
      seen.get().forEach(all::add);
      return (long) all.size();
    }

    @Override
    public void snapshotState(FunctionSnapshotContext context) {}
  }

  @Test
  void operatorStateIsPerSubtaskAndReadyBeforeOpen() throws Exception {
    EVENTS.clear();
    Queue<Long> sizes = new ConcurrentLinkedQueue<>();
    StreamEnvironment env = StreamEnvironment.create();
    env.setParallelism(1);
    env.fromSequence(1, 50)
        .map(new Buffering())
        .addSink((SinkFunction<Long>) (v, ctx) -> SinkHolder.SIZES.add(v));
    SinkHolder.SIZES.clear();
    env.execute("operator-state");
    sizes.addAll(SinkHolder.SIZES);
    assertThat(EVENTS).containsExactly("open after init: true");
    assertThat(sizes).hasSize(50);
    assertThat(sizes.stream().mapToLong(Long::longValue).max().getAsLong()).isEqualTo(50);
  }

  /** Static holder: sinks are copied per subtask. */
  static final class SinkHolder {
    static final Queue<Long> SIZES = new ConcurrentLinkedQueue<>();
  }
}
