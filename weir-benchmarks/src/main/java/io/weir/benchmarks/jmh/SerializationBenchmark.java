package io.weir.benchmarks.jmh;

import io.weir.api.typeutils.DataInputDeserializer;
import io.weir.api.typeutils.DataOutputSerializer;
import java.io.IOException;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * A round trip through Weir's serialization buffers: write a value to a {@link
 * DataOutputSerializer}, read it back through a {@link DataInputDeserializer}. This is the cost
 * every record and every state access pays, so it bounds the rest.
 *
 * <p>Run: {@code java -cp target/classes:$(cat target/classpath.txt) org.openjdk.jmh.Main
 * SerializationBenchmark}
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class SerializationBenchmark {
  private final DataOutputSerializer out = new DataOutputSerializer(64);
  private final DataInputDeserializer in = new DataInputDeserializer();

  /** Varied per call so the JIT cannot fold the value into a constant. */
  private long longValue = 0x9E3779B97F4A7C15L;

  private final String stringValue = "weir-keyed-count-0042";

  @Benchmark
  public long longRoundTrip() throws IOException {
    out.clear();
    out.writeLong(longValue++);
    in.setBuffer(out.getSharedBuffer(), 0, out.length());
    return in.readLong();
  }

  @Benchmark
  public String stringRoundTrip() throws IOException {
    out.clear();
    out.writeUTF(stringValue);
    in.setBuffer(out.getSharedBuffer(), 0, out.length());
    return in.readUTF();
  }
}
