package io.weir.runtime.testing;

import io.weir.api.StreamEnvironment;
import io.weir.api.functions.ReduceFunction;
import io.weir.api.tuple.Tuple2;
import io.weir.api.typeutils.TypeInformation;
import io.weir.api.typeutils.Types;
import io.weir.runtime.testing.matrix.MatrixCell;
import io.weir.runtime.testing.matrix.TestMatrix;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@code keyBy().reduce()} and {@code sum()}: the running result per key survives restores. */
@Timeout(60)
@TestMatrix(skip = MatrixCell.ROCKSDB_INCREMENTAL)
class ReduceHarnessTest {

  static final TypeInformation<Tuple2<String, Long>> PAIR = Types.TUPLE(Types.STRING, Types.LONG);

  static final List<Tuple2<String, Long>> INPUT =
      List.of(
          Tuple2.of("a", 1L),
          Tuple2.of("b", 10L),
          Tuple2.of("a", 2L),
          Tuple2.of("a", 3L),
          Tuple2.of("c", 100L),
          Tuple2.of("b", 20L),
          Tuple2.of("c", 200L));

  static final List<Tuple2<String, Long>> RUNNING_SUMS =
      List.of(
          Tuple2.of("a", 1L),
          Tuple2.of("b", 10L),
          Tuple2.of("a", 3L),
          Tuple2.of("a", 6L),
          Tuple2.of("c", 100L),
          Tuple2.of("b", 30L),
          Tuple2.of("c", 300L));

  /** Adds into its first argument, which is the state's value: copy-on-write must protect it. */
  static final class AddInPlace implements ReduceFunction<Tuple2<String, Long>> {
    private static final long serialVersionUID = 1L;

    @Override
    public Tuple2<String, Long> reduce(Tuple2<String, Long> a, Tuple2<String, Long> b) {
      a.f1 += b.f1;
      return a;
    }
  }

  @Test
  void reduce() {
    OperatorHarness.forReduce(
            (Tuple2<String, Long> a, Tuple2<String, Long> b) -> Tuple2.of(a.f0, a.f1 + b.f1),
            t -> t.f0,
            Types.STRING,
            PAIR)
        .input(INPUT)
        .expectOutput(RUNNING_SUMS)
        .verify();
  }

  @Test
  void reduceThatMutatesItsAccumulator() {
    OperatorHarness.forReduce(new AddInPlace(), t -> t.f0, Types.STRING, PAIR)
        .input(INPUT)
        .expectOutput(RUNNING_SUMS)
        .verify();
  }

  @Test
  void sumOfTupleField() {
    StreamEnvironment env = StreamEnvironment.create();
    var summed = env.fromCollection(INPUT, PAIR).keyBy(t -> t.f0, Types.STRING).sum(1);
    OperatorHarness.<Tuple2<String, Long>, Tuple2<String, Long>>forStream(summed)
        .input(INPUT)
        .expectOutput(RUNNING_SUMS)
        .verify();
  }

  @Test
  void sumOfNumbers() {
    StreamEnvironment env = StreamEnvironment.create();
    var summed = env.fromElements(5L, 6L, 7L, 8L).keyBy(v -> v % 2, Types.LONG).sum(0);
    OperatorHarness.<Long, Long>forStream(summed)
        .input(5L, 6L, 7L, 8L)
        .expectOutput(List.of(5L, 6L, 12L, 14L))
        .verify();
  }
}
