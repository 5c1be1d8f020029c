package io.weir.benchmarks.jmh;

import io.weir.api.config.CheckpointingOptions;
import io.weir.api.config.Configuration;
import io.weir.api.functions.TaskInfo;
import io.weir.api.state.ValueState;
import io.weir.api.state.ValueStateDescriptor;
import io.weir.api.typeutils.Types;
import io.weir.runtime.state.KeyGroupRangeAssignment;
import io.weir.runtime.state.KeyedStateBackend;
import io.weir.runtime.state.KeyedStateBackendFactory;
import io.weir.runtime.state.KeyedStateBackends;
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
 * <p>{@code backend} names the keyed backend under test by its {@code state.backend.type}.
 */
@State(Scope.Thread)
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xmx4g", "-Xms4g"})
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class StateAccessBenchmark {

  @Param({"hashmap", "rocksdb"})
  String backend;

  @Param({"1000000"})
  int keys;

  private KeyedStateBackend<Long> keyed;
  private ValueState<Long> state;
  private long next;

  /**
   * The keyed backend named {@code name} ({@code state.backend.type}), for one operator owning all
   * 128 key groups, built the way the runtime builds it.
   */
  static KeyedStateBackend<Long> open(String name) {
    Configuration conf = new Configuration();
    conf.set(CheckpointingOptions.STATE_BACKEND, name);
    try {
      return KeyedStateBackends.create(
          new KeyedStateBackendFactory.Context<>(
              "benchmark",
              "benchmark",
              new TaskInfo("benchmark", 0, 1, 128, 0),
              Types.LONG.createSerializer(),
              KeyGroupRangeAssignment.computeKeyGroupRangeForOperatorIndex(128, 1, 0),
              conf,
              StateAccessBenchmark.class.getClassLoader(),
              null,
              new Object()));
    } catch (Exception e) {
      throw new IllegalStateException("Cannot create the " + name + " backend", e);
    }
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
