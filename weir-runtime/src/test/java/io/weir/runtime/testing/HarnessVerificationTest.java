package io.weir.runtime.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.weir.api.functions.Collector;
import io.weir.api.functions.KeyedProcessFunction;
import io.weir.api.functions.MapFunction;
import io.weir.api.functions.OpenContext;
import io.weir.api.state.ValueState;
import io.weir.api.state.ValueStateDescriptor;
import io.weir.api.typeutils.Types;
import io.weir.runtime.operators.OneInputOperator;
import io.weir.runtime.operators.StreamOperator;
import io.weir.runtime.testing.matrix.MatrixCell;
import io.weir.runtime.testing.matrix.TestMatrix;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The harness itself: that it catches what it is meant to catch, and says where. */
@Timeout(60)
@TestMatrix(skip = MatrixCell.ROCKSDB_INCREMENTAL)
class HarnessVerificationTest {

  /** Counts per key in a plain field instead of keyed state: the bug the harness exists for. */
  static final class CountInField extends KeyedProcessFunction<String, String, String> {
    private static final long serialVersionUID = 1L;
    private final Map<String, Integer> counts = new HashMap<>();

    @Override
    public void processElement(String value, Context ctx, Collector<String> out) {
      out.collect(value + "=" + counts.merge(value, 1, Integer::sum));
    }
  }

  @Test
  void stateInAFieldIsCaughtAtTheFirstRestoreThatLosesIt() {
    var harness =
        OperatorHarness.forKeyedProcess(new CountInField(), w -> w, Types.STRING, Types.STRING)
            .input("a", "b", "a", "a")
            .expectOutput(List.of("a=1", "b=1", "a=2", "a=3"));
    // The uninterrupted run is right, so only the restores can tell.
    assertThat(harness.runUninterrupted()).containsExactly("a=1", "b=1", "a=2", "a=3");
    assertThatThrownBy(harness::verify)
        .isInstanceOfSatisfying(
            HarnessVerificationError.class,
            e -> {
              // Restoring before step 0 loses nothing; before step 1 loses the count of "a".
              assertThat(e.failedRun())
                  .isEqualTo(
                      "a snapshot + restore into a fresh instance was injected before step 1"
                          + " (element \"b\" on input 1)");
              assertThat(e.otherFailedRuns())
                  .contains(
                      "a snapshot + restore into a fresh instance was injected before step 2"
                          + " (element \"a\" on input 1)")
                  .doesNotContain(
                      "a snapshot + restore into a fresh instance was injected before step 0"
                          + " (element \"a\" on input 1)");
            })
        .hasMessageContaining("Operator 'Keyed Process' diverged when a snapshot + restore")
        .hasMessageContaining(
            "first difference at output index 2: expected \"a=2\" but got \"a=1\"")
        .hasMessageContaining("1: element \"b\" on input 1");
  }

  @Test
  void withoutAnExpectationRunsAreComparedWithTheUninterruptedOne() {
    assertThatThrownBy(
            () ->
                OperatorHarness.forKeyedProcess(
                        new CountInField(), w -> w, Types.STRING, Types.STRING)
                    .input("a", "a")
                    .withoutFailover()
                    .verify())
        .isInstanceOf(HarnessVerificationError.class)
        .hasMessageContaining("output differs from the uninterrupted run's")
        .hasMessageContaining("injected before step 1");
  }

  @Test
  void aWrongExpectationFailsTheUninterruptedRun() {
    assertThatThrownBy(
            () ->
                OperatorHarness.forMap((String s) -> s.toUpperCase(java.util.Locale.ROOT))
                    .input("a", "b")
                    .expectOutput(List.of("A", "C"))
                    .verify())
        .isInstanceOf(HarnessVerificationError.class)
        .hasMessageStartingWith("Operator 'Map' failed even in the uninterrupted run")
        .hasMessageContaining("expected \"C\" but got \"B\"");
  }

  @Test
  void anyOrderComparesAsMultisets() {
    OperatorHarness.forMap((Integer i) -> i * 2)
        .input(3, 1, 2)
        .expectOutputInAnyOrder(List.of(2, 4, 6))
        .verify();
    assertThatThrownBy(
            () ->
                OperatorHarness.forMap((Integer i) -> i * 2)
                    .input(3, 1, 2)
                    .expectOutputInAnyOrder(List.of(2, 4, 4))
                    .verify())
        .hasMessageContaining("ignoring order, missing (1) [4], unexpected (1) [6]");
  }

  @Test
  void anExceptionNamesTheRun() {
    MapFunction<String, String> failsOnB =
        s -> {
          if (s.equals("b")) {
            throw new IllegalStateException("boom on b");
          }
          return s;
        };
    assertThatThrownBy(() -> OperatorHarness.forMap(failsOnB).input("a", "b").verify())
        .isInstanceOf(HarnessVerificationError.class)
        .hasMessageContaining("failed even in the uninterrupted run")
        .hasMessageContaining("boom on b")
        .hasRootCauseMessage("boom on b");
  }

  /** An operator of one's own, keyed, with state in keyed state: passes. */
  static final class Dedup extends StreamOperator<String> implements OneInputOperator<String> {
    private ValueState<Boolean> seen;

    @Override
    public void open() {
      seen =
          context.keyedStateBackend().getState(new ValueStateDescriptor<>("seen", Types.BOOLEAN));
    }

    @Override
    public void processElement(String value, long timestamp) throws Exception {
      if (seen.value() == null) {
        seen.update(true);
        output.collect(value, timestamp);
      }
    }
  }

  @Test
  void ownOperatorKeyedByTheHarness() {
    OperatorHarness.<String, String, Dedup>forOperator("Dedup", Dedup::new)
        .keyedBy(s -> s, Types.STRING)
        .input("x", "y", "x", "z", "y")
        .expectOutput(List.of("x", "y", "z"))
        .verify();
  }

  @Test
  void aSupplierThatReusesItsInstanceIsRejected() {
    Dedup only = new Dedup();
    assertThatThrownBy(
            () ->
                OperatorHarness.<String, String, Dedup>forOperator("Dedup", () -> only)
                    .keyedBy(s -> s, Types.STRING)
                    .input("x")
                    .verify())
        .hasMessageContaining("returned the instance it returned before");
  }

  /** Emits its running list and then keeps changing the very object it emitted. */
  static final class EmitsThenMutates extends StreamOperator<List<String>>
      implements OneInputOperator<String> {
    private final List<String> all = new ArrayList<>();

    @Override
    public void processElement(String value, long timestamp) {
      all.add(value);
      output.collect(all, timestamp);
    }
  }

  @Test
  void timestampsAreComparedBetweenRuns() {
    OperatorHarness.forMap((String s) -> s).element("a", 5).element("b", 7).verify();
  }

  @Test
  void recordedOutputIsCopiedWhenTheOutputTypeIsKnown() {
    List<List<String>> output =
        OperatorHarness.<String, List<String>, EmitsThenMutates>forOperator(
                "Mutates", EmitsThenMutates::new)
            .outputType(Types.LIST(Types.STRING))
            .input("a", "b")
            .runUninterrupted();
    assertThat(output).containsExactly(List.of("a"), List.of("a", "b"));
  }

  @Test
  void manualClockRunsCallbacksInTimeOrder() throws Exception {
    ManualProcessingTimeService clock = new ManualProcessingTimeService(100);
    List<String> fired = new ArrayList<>();
    clock.registerTimer(300, t -> fired.add("300"));
    clock.registerTimer(
        200,
        t -> {
          fired.add("200");
          clock.registerTimer(250, u -> fired.add("250 from 200"));
        });
    var cancelled = clock.registerTimer(150, t -> fired.add("150"));
    cancelled.cancel();
    clock.advanceTo(260);
    assertThat(fired).containsExactly("200", "250 from 200");
    assertThat(clock.getCurrentProcessingTime()).isEqualTo(260);
    clock.advanceTo(10);
    assertThat(clock.getCurrentProcessingTime()).isEqualTo(260);
    assertThat(clock.numberOfScheduledCallbacks()).isEqualTo(1);
  }

  /**
   * Keeps the list it got from state in a field and changes it there on later elements: between a
   * checkpoint and the (asynchronous) write of its snapshot, those changes leak into the snapshot,
   * because they bypass the state and its copy-on-write.
   */
  static final class CachesItsStateValue extends KeyedProcessFunction<String, String, String> {
    private static final long serialVersionUID = 1L;
    private transient ValueState<ArrayList<String>> seen;
    private transient Map<String, ArrayList<String>> cache;

    @Override
    @SuppressWarnings("unchecked")
    public void open(OpenContext openContext) {
      seen =
          getRuntimeContext()
              .getState(
                  new ValueStateDescriptor<>(
                      "seen", (Class<ArrayList<String>>) (Class<?>) ArrayList.class));
      cache = new HashMap<>();
    }

    @Override
    public void processElement(String value, Context ctx, Collector<String> out) throws Exception {
      ArrayList<String> list = cache.get(ctx.getCurrentKey());
      if (list == null) {
        list = seen.value() == null ? new ArrayList<>() : seen.value();
        cache.put(ctx.getCurrentKey(), list);
      }
      list.add(value);
      seen.update(list);
      out.collect(ctx.getCurrentKey() + "=" + list.size());
    }
  }

  @Test
  void aStateValueChangedBehindTheStatesBackIsCaughtByTheDelayedSnapshotWrite() {
    // Only objects on the heap can change behind a state's back; RocksDB serializes on update.
    org.junit.jupiter.api.Assumptions.assumeTrue(
        io.weir.api.config.Configuration.fromSystemProperties()
            .get(io.weir.api.config.CheckpointingOptions.STATE_BACKEND)
            .equals("hashmap"),
        "a heap-backend property");
    assertThatThrownBy(
            () ->
                OperatorHarness.forKeyedProcess(
                        new CachesItsStateValue(), w -> w, Types.STRING, Types.STRING)
                    .input("k", "k", "k")
                    .expectOutput(List.of("k=1", "k=2", "k=3"))
                    .verify())
        .isInstanceOfSatisfying(
            HarnessVerificationError.class,
            e -> {
              // Snapshot + restore writes the snapshot at once, so only the failovers that
              // write it after the doomed steps changed the cached list can see the leak.
              assertThat(e.failedRun())
                  .startsWith("a checkpoint was taken before step 1")
                  .contains("completed but not yet notified");
              assertThat(e.otherFailedRuns()).allMatch(r -> r.contains("not yet notified"));
            });
  }

  /** Appends to a shared list at once: at-least-once by design. */
  static final class AppendingSink implements io.weir.api.functions.SinkFunction<String> {
    private static final long serialVersionUID = 1L;
    static final List<String> WRITTEN = new ArrayList<>();

    @Override
    public void invoke(String value, io.weir.api.functions.SinkFunction.Context context) {
      WRITTEN.add(value);
    }
  }

  static final ExternalOutput<String> APPENDED =
      new ExternalOutput<>() {
        @Override
        public void reset() {
          AppendingSink.WRITTEN.clear();
        }

        @Override
        public List<String> read() {
          return AppendingSink.WRITTEN;
        }
      };

  @Test
  void aSinkWithoutTransactionsWritesTwiceAfterACrash() {
    var harness =
        OperatorHarness.forSinkFunction(new AppendingSink())
            .input("a", "b", "c")
            .expectExternalOutput(APPENDED, List.of("a", "b", "c"));
    assertThatThrownBy(harness::verify)
        .isInstanceOf(HarnessVerificationError.class)
        .hasMessageContaining("the operator crashed before step 1")
        .hasMessageContaining("expected (3) [\"a\", \"b\", \"c\"]")
        .hasMessageContaining("actual   (4) [\"a\", \"a\", \"b\", \"c\"]");
    // Snapshot + restore alone loses and repeats nothing.
    harness.withoutFailover().verify();
  }
}
