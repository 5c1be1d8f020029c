package io.weir.benchmarks.jmh;

import io.weir.api.state.ValueState;
import io.weir.api.state.ValueStateDescriptor;
import io.weir.api.typeutils.Types;
import io.weir.runtime.state.HeapKeyedStateBackend;
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
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * W6: keyed {@code ValueState} get/update throughput, per state backend: {@code setCurrentKey},
 * {@code value()} and {@code update()} on one of {@code keys} keys (all present from the setup on),
 * the keys visited in a scrambled order, as W1 does per record.
 *
 * <p>{@code backend} names the keyed backend under test; {@code heap} is the only one so far.
 * Another backend (RocksDB) is one more {@code @Param} value and one more case in {@link #open},
 * nothing else.
 */
@State(Scope.Thread)
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xmx4g", "-Xms4g"})
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class StateAccessBenchmark {

  @Param({"heap"})
  String backend;

  @Param({"1000000"})
  int keys;

  private KeyedBackend<Long> keyed;
  private ValueState<Long> state;
  private long next;

  /** What the benchmark needs of a keyed state backend. */
  interface KeyedBackend<K> extends AutoCloseable {
    void setCurrentKey(K key);

    <T> ValueState<T> getState(ValueStateDescriptor<T> descriptor);

    /** Frees what the backend holds outside the heap; nothing for the heap backend. */
    @Override
    void close() throws IOException;
  }

  /** The keyed backend named {@code name}, for one operator owning all 128 key groups. */
  static KeyedBackend<Long> open(String name) {
    return switch (name) {
      case "heap" -> heap();
      default ->
          throw new IllegalArgumentException(
              "Unknown state backend '" + name + "' for StateAccessBenchmark; it knows: heap.");
    };
  }

  private static KeyedBackend<Long> heap() {
    HeapKeyedStateBackend<Long> heap =
        new HeapKeyedStateBackend<>(
            "benchmark",
            Types.LONG.createSerializer(),
            128,
            KeyGroupRangeAssignment.computeKeyGroupRangeForOperatorIndex(128, 1, 0));
    return new KeyedBackend<>() {
      @Override
      public void setCurrentKey(Long key) {
        heap.setCurrentKey(key);
      }

      @Override
      public <T> ValueState<T> getState(ValueStateDescriptor<T> descriptor) {
        return heap.getState(descriptor);
      }

      @Override
      public void close() {}
    };
  }

  @Setup(Level.Trial)
  public void fill() throws IOException {
    keyed = open(backend);
    state = keyed.getState(new ValueStateDescriptor<>("count", Types.LONG));
    for (long k = 0; k < keys; k++) {
      keyed.setCurrentKey(k);
      state.update(k);
    }
  }

  @TearDown(Level.Trial)
  public void close() throws IOException {
    keyed.close();
  }

  /** One keyed read-modify-write, as W1 does per record. */
  @Benchmark
  @BenchmarkMode(Mode.Throughput)
  @OutputTimeUnit(TimeUnit.SECONDS)
  public Long getAndUpdate() throws IOException {
    long key = (next++ * 0x9E3779B97F4A7C15L >>> 44) % keys;
    keyed.setCurrentKey(key);
    Long v = state.value();
    long updated = v == null ? 1 : v + 1;
    state.update(updated);
    return updated;
  }
}
