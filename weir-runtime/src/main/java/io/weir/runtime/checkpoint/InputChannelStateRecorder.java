package io.weir.runtime.checkpoint;

import io.weir.runtime.network.Buffer;
import io.weir.runtime.network.InputChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The input side of an unaligned checkpoint's in-flight data: per input channel, the bytes that
 * arrive after the task's snapshot and before that channel's barrier. {@link BarrierHandler} says
 * when a channel starts and stops (through its {@link BarrierHandler.Actions}); the task shows the
 * recorder every buffer it takes from its gate. A recording starts at a record boundary — a record
 * the snapshot cut in two is recorded whole — so replaying it into a fresh deserializer, before any
 * new input, continues the channel's stream exactly where the snapshot cut it.
 *
 * <p>Task thread only.
 */
public final class InputChannelStateRecorder {

  private final List<InputChannel> channels;

  /** Per channel: its recording while its barrier is missing, else null. */
  private final List<List<byte[]>> recording;

  /** What finished channels recorded since the last {@link #take()} or {@link #clear()}. */
  private final Map<Integer, List<byte[]>> recorded = new TreeMap<>();

  /**
   * @param channels the task's input channels, by gate channel index
   */
  public InputChannelStateRecorder(List<InputChannel> channels) {
    this.channels = List.copyOf(channels);
    this.recording = new ArrayList<>(channels.size());
    for (int c = 0; c < channels.size(); c++) {
      recording.add(null);
    }
  }

  /**
   * From now on the data of {@code channel} up to its barrier is in flight, starting with what its
   * deserializer holds already (a partly received record, the rest of the current buffer).
   */
  public void start(int channel) {
    List<byte[]> buffers = new ArrayList<>();
    addUnconsumed(channel, buffers);
    recording.set(channel, buffers);
  }

  /** The task took {@code buffer} from {@code channel}; a copy is kept while it is recorded. */
  public void onBuffer(int channel, Buffer buffer) {
    List<byte[]> buffers = recording.get(channel);
    if (buffers != null) {
      buffers.add(buffer.copyOfContent());
    }
  }

  /**
   * {@code channel} delivered its barrier before the snapshot: keep only the bytes its deserializer
   * still holds (the start of a record whose rest the barrier overtook).
   */
  public void keepUnconsumed(int channel) {
    List<byte[]> buffers = new ArrayList<>(1);
    addUnconsumed(channel, buffers);
    finish(channel, buffers);
  }

  /** The barrier of {@code channel} arrived, or the channel closed: its recording is complete. */
  public void stop(int channel) {
    List<byte[]> buffers = recording.get(channel);
    recording.set(channel, null);
    if (buffers != null) {
      finish(channel, buffers);
    }
  }

  /** True while {@code channel} is being recorded. */
  public boolean isRecording(int channel) {
    return recording.get(channel) != null;
  }

  /**
   * The in-flight data of the channels that finished since the last call, by channel index, leaving
   * out channels without any; the recorder forgets it.
   */
  public Map<Integer, List<byte[]>> take() {
    Map<Integer, List<byte[]>> out = new TreeMap<>(recorded);
    recorded.clear();
    return out;
  }

  /** Forgets every recording and result: a new checkpoint starts or the last one was given up. */
  public void clear() {
    for (int c = 0; c < recording.size(); c++) {
      recording.set(c, null);
    }
    recorded.clear();
  }

  private void addUnconsumed(int channel, List<byte[]> into) {
    byte[] unconsumed = channels.get(channel).getDeserializer().captureUnconsumed();
    if (unconsumed.length > 0) {
      into.add(unconsumed);
    }
  }

  private void finish(int channel, List<byte[]> buffers) {
    if (!buffers.isEmpty()) {
      recorded.put(channel, buffers);
    }
  }
}
