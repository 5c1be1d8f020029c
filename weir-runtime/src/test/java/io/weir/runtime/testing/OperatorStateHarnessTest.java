package io.weir.runtime.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.weir.api.functions.CheckpointedFunction;
import io.weir.api.functions.RichMapFunction;
import io.weir.api.state.FunctionInitializationContext;
import io.weir.api.state.FunctionSnapshotContext;
import io.weir.api.state.ListState;
import io.weir.api.state.ListStateDescriptor;
import io.weir.api.typeutils.Types;
import io.weir.runtime.testing.matrix.MatrixCell;
import io.weir.runtime.testing.matrix.TestMatrix;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A rich map with operator state through {@link CheckpointedFunction}: it numbers the elements it
 * has seen, keeping the counter in a plain field between checkpoints and in a list state at each
 * checkpoint, as Flink's documentation teaches.
 */
@Timeout(60)
@TestMatrix(skip = MatrixCell.ROCKSDB_INCREMENTAL)
class OperatorStateHarnessTest {

  static final AtomicInteger RESTORED_STARTS = new AtomicInteger();
  static final AtomicInteger FRESH_STARTS = new AtomicInteger();

  /** Emits "n:element"; checks on every start that isRestored agrees with what it finds. */
  static final class Numbering extends RichMapFunction<String, String>
      implements CheckpointedFunction {
    private static final long serialVersionUID = 1L;
    private transient ListState<Long> checkpointed;
    private transient long count;
    private transient long lastSnapshotId;

    @Override
    public void initializeState(FunctionInitializationContext context) throws Exception {
      checkpointed =
          context
              .getOperatorStateStore()
              .getListState(new ListStateDescriptor<>("count", Types.LONG));
      count = 0;
      boolean found = false;
      for (Long c : checkpointed.get()) {
        count += c;
        found = true;
      }
      if (context.isRestored() != context.getRestoredCheckpointId().isPresent()) {
        throw new IllegalStateException("isRestored disagrees with getRestoredCheckpointId");
      }
      if (found && !context.isRestored()) {
        throw new IllegalStateException("state found, but isRestored() is false");
      }
      if (context.isRestored()) {
        if (!found) {
          throw new IllegalStateException("isRestored() but the list state came back empty");
        }
        RESTORED_STARTS.incrementAndGet();
      } else {
        FRESH_STARTS.incrementAndGet();
      }
    }

    @Override
    public void snapshotState(FunctionSnapshotContext context) throws Exception {
      if (context.getCheckpointId() <= lastSnapshotId) {
        throw new IllegalStateException("checkpoint ids must increase");
      }
      lastSnapshotId = context.getCheckpointId();
      checkpointed.update(List.of(count));
    }

    @Override
    public String map(String value) {
      count++;
      return count + ":" + value;
    }
  }

  @BeforeEach
  void resetCounters() {
    RESTORED_STARTS.set(0);
    FRESH_STARTS.set(0);
  }

  @Test
  void counterInOperatorState() {
    OperatorHarness.forMap(new Numbering())
        .input("a", "b", "c", "d", "e")
        .expectOutput(List.of("1:a", "2:b", "3:c", "4:d", "5:e"))
        .verify();
    // Every run starts fresh once; every restore reports isRestored. The single restores are 6 (one
    // before each position) and the failover runs 2 * 15 (a crash after each checkpoint position),
    // or a sample of them where the build says so.
    List<Step> steps = new java.util.ArrayList<>();
    for (String s : List.of("a", "b", "c", "d", "e")) {
      steps.add(new Step.Element(0, s, Long.MIN_VALUE));
    }
    List<RunPlan> plans = RunPlan.all(steps, true);
    long failovers = plans.stream().filter(plan -> plan.failover() != null).count();
    long singleRestores =
        plans.stream()
            .filter(plan -> plan.failover() == null && plan.restoreBefore().size() == 1)
            .count();
    boolean sampled = Boolean.getBoolean(RunPlan.SAMPLED);
    assertThat(failovers).isEqualTo(sampled ? 2 * 11 : 2 * 15);
    assertThat(singleRestores).isEqualTo(sampled ? 4 : 6);
    assertThat(FRESH_STARTS.get()).isEqualTo(1 + singleRestores + 1 + failovers);
    assertThat(RESTORED_STARTS.get()).isEqualTo(singleRestores + 6 + failovers);
  }

  @Test
  void keyedRichMapGetsOperatorStateToo() {
    OperatorHarness.forMap(new Numbering())
        .keyedBy((String s) -> s, Types.STRING)
        .input("x", "y", "x")
        .expectOutput(List.of("1:x", "2:y", "3:x"))
        .verify();
  }
}
