package io.weir.benchmarks.jmh;

import io.weir.api.state.ValueState;
import io.weir.api.state.ValueStateDescriptor;
import io.weir.api.typeutils.Types;
import io.weir.runtime.state.HeapKeyedStateBackend;
import io.weir.runtime.state.HeapSnapshotStrategy;
import io.weir.runtime.state.KeyGroupRangeAssignment;
import java.io.IOException;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * W6: the heap backend's snapshot pause (the synchronous part, on the task thread) with 1 000 000
 * keys. W6's keyed {@code ValueState} get/update throughput is {@link StateAccessBenchmark}, per
 * backend.
 */
@State(Scope.Thread)
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xmx4g", "-Xms4g"})
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class HeapStateBenchmark {

  @Param({"1000000"})
  int keys;

  private HeapKeyedStateBackend<Long> backend;

  @Setup(Level.Trial)
  public void fill() throws IOException {
    backend =
        new HeapKeyedStateBackend<>(
            "benchmark",
            Types.LONG.createSerializer(),
            128,
            KeyGroupRangeAssignment.computeKeyGroupRangeForOperatorIndex(128, 1, 0));
    ValueState<Long> state = backend.getState(new ValueStateDescriptor<>("count", Types.LONG));
    for (long k = 0; k < keys; k++) {
      backend.setCurrentKey(k);
      state.update(k);
    }
  }

  /** The synchronous part of a checkpoint: freeze every key group (and let go again). */
  @Benchmark
  @BenchmarkMode(Mode.AverageTime)
  @OutputTimeUnit(TimeUnit.MICROSECONDS)
  public Object syncSnapshotPause() {
    HeapSnapshotStrategy.KeyedSnapshot snapshot = HeapSnapshotStrategy.snapshot(backend);
    snapshot.release();
    return snapshot;
  }
}
