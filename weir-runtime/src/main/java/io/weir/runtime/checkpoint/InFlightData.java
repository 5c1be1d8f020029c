package io.weir.runtime.checkpoint;

import io.weir.runtime.network.ChannelStateEntry;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The in-flight data of one subtask in an unaligned checkpoint, per channel, as {@link
 * ChannelStateEntry entries}: what the subtask recorded before its snapshot is written ({@link
 * SubtaskStateCodec}), and what it replays after a restore ({@link TaskRestore#read()}).
 *
 * @param inputs per gate channel index, the event time at the cut and what was recorded on it, in
 *     order
 * @param outputs per output channel, the buffers and events the barrier overtook there, in order
 */
public record InFlightData(
    Map<Integer, List<ChannelStateEntry>> inputs,
    Map<ResultSubpartitionInfo, List<ChannelStateEntry>> outputs) {

  public static final InFlightData NONE = new InFlightData(Map.of(), Map.of());

  public InFlightData {
    inputs = unmodifiable(inputs);
    outputs = unmodifiable(outputs);
  }

  public boolean isEmpty() {
    return inputs.isEmpty() && outputs.isEmpty();
  }

  /** The bytes of every buffer, without framing or events. */
  public long bytes() {
    long bytes = 0;
    for (List<ChannelStateEntry> entries : inputs.values()) {
      bytes += sum(entries);
    }
    for (List<ChannelStateEntry> entries : outputs.values()) {
      bytes += sum(entries);
    }
    return bytes;
  }

  /** This data and {@code other}'s; a channel in both keeps {@code other}'s buffers. */
  public InFlightData with(InFlightData other) {
    Map<Integer, List<ChannelStateEntry>> in = new LinkedHashMap<>(inputs);
    in.putAll(other.inputs);
    Map<ResultSubpartitionInfo, List<ChannelStateEntry>> out = new LinkedHashMap<>(outputs);
    out.putAll(other.outputs);
    return new InFlightData(in, out);
  }

  private static long sum(List<ChannelStateEntry> entries) {
    long bytes = 0;
    for (ChannelStateEntry entry : entries) {
      if (entry instanceof ChannelStateEntry.Bytes b) {
        bytes += b.bytes().length;
      }
    }
    return bytes;
  }

  /** Keeps the channels' order (the order they are written and replayed in). */
  private static <K> Map<K, List<ChannelStateEntry>> unmodifiable(
      Map<K, List<ChannelStateEntry>> map) {
    Map<K, List<ChannelStateEntry>> copy = new LinkedHashMap<>();
    map.forEach((k, v) -> copy.put(k, List.copyOf(v)));
    return Collections.unmodifiableMap(copy);
  }
}
