package io.weir.runtime.checkpoint;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The in-flight data of one subtask in an unaligned checkpoint, per channel, as bytes: what the
 * subtask recorded before its snapshot is written ({@link SubtaskStateCodec}), and what it replays
 * after a restore ({@link TaskRestore#read()}).
 *
 * @param inputs per gate channel index, the buffers recorded on it, in order
 * @param outputs per output channel, the buffers the barrier overtook there, in order
 */
public record InFlightData(
    Map<Integer, List<byte[]>> inputs, Map<ResultSubpartitionInfo, List<byte[]>> outputs) {

  public static final InFlightData NONE = new InFlightData(Map.of(), Map.of());

  public InFlightData {
    inputs = unmodifiable(inputs);
    outputs = unmodifiable(outputs);
  }

  public boolean isEmpty() {
    return inputs.isEmpty() && outputs.isEmpty();
  }

  /** The bytes of every buffer, without framing. */
  public long bytes() {
    long bytes = 0;
    for (List<byte[]> buffers : inputs.values()) {
      bytes += sum(buffers);
    }
    for (List<byte[]> buffers : outputs.values()) {
      bytes += sum(buffers);
    }
    return bytes;
  }

  /** This data and {@code other}'s; a channel in both keeps {@code other}'s buffers. */
  public InFlightData with(InFlightData other) {
    Map<Integer, List<byte[]>> in = new LinkedHashMap<>(inputs);
    in.putAll(other.inputs);
    Map<ResultSubpartitionInfo, List<byte[]>> out = new LinkedHashMap<>(outputs);
    out.putAll(other.outputs);
    return new InFlightData(in, out);
  }

  private static long sum(List<byte[]> buffers) {
    long bytes = 0;
    for (byte[] b : buffers) {
      bytes += b.length;
    }
    return bytes;
  }

  /** Keeps the channels' order (the order they are written and replayed in). */
  private static <K> Map<K, List<byte[]>> unmodifiable(Map<K, List<byte[]>> map) {
    Map<K, List<byte[]>> copy = new LinkedHashMap<>();
    map.forEach((k, v) -> copy.put(k, List.copyOf(v)));
    return Collections.unmodifiableMap(copy);
  }
}
