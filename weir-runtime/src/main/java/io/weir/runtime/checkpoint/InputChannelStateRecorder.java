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

  /**
   * Per channel, while the task handles a barrier from it: the buffers that barrier overtook in the
   * channel's queue after they came over the network (see {@link InputChannel#takeOvertaken}).
   */
  private final List<List<byte[]>> overtaken;

  /** Per channel, the checkpoint whose barrier {@link #overtaken} belongs to. */
  private final long[] overtakenBy;

  /** What finished channels recorded since the last {@link #take()} or {@link #clear()}. */
  private final Map<Integer, List<byte[]>> recorded = new TreeMap<>();

  /**
   * @param channels the task's input channels, by gate channel index
   */
  public InputChannelStateRecorder(List<InputChannel> channels) {
    this.channels = List.copyOf(channels);
    this.recording = new ArrayList<>(channels.size());
    this.overtaken = new ArrayList<>(channels.size());
    this.overtakenBy = new long[channels.size()];
    for (int c = 0; c < channels.size(); c++) {
      recording.add(null);
      overtaken.add(null);
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

  /**
   * The task is about to handle the barrier of {@code checkpointId} from {@code channel}: the
   * buffers it overtook in that channel's queue, if any (a remote producer's), belong to the
   * channel's in-flight data should the recording of the channel end with this barrier. Forgotten
   * by {@link #barrierHandled}.
   */
  public void barrierArriving(int channel, long checkpointId) {
    overtaken.set(channel, channels.get(channel).takeOvertaken(checkpointId));
    overtakenBy[channel] = checkpointId;
  }

  /** The barrier announced by {@link #barrierArriving} was handled. */
  public void barrierHandled(int channel) {
    overtaken.set(channel, null);
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
    keepUnconsumed(channel, -1);
  }

  /**
   * As {@link #keepUnconsumed(int)}, for the recording of checkpoint {@code checkpointId}: the
   * buffers its barrier overtook in the channel's queue follow the unconsumed bytes.
   */
  public void keepUnconsumed(int channel, long checkpointId) {
    List<byte[]> buffers = new ArrayList<>(1);
    addUnconsumed(channel, buffers);
    addOvertaken(channel, checkpointId, buffers);
    finish(channel, buffers);
  }

  /** The barrier of {@code channel} arrived, or the channel closed: its recording is complete. */
  public void stop(int channel) {
    stop(channel, -1);
  }

  /**
   * As {@link #stop(int)}, for the recording of checkpoint {@code checkpointId}: if its barrier
   * ended the recording, the buffers it overtook in the channel's queue come last.
   */
  public void stop(int channel, long checkpointId) {
    List<byte[]> buffers = recording.get(channel);
    recording.set(channel, null);
    if (buffers != null) {
      addOvertaken(channel, checkpointId, buffers);
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

  /** The overtaken buffers queued behind what the task read of the channel come after it. */
  private void addOvertaken(int channel, long checkpointId, List<byte[]> into) {
    List<byte[]> buffers = overtaken.get(channel);
    if (buffers != null && overtakenBy[channel] == checkpointId) {
      into.addAll(buffers);
      overtaken.set(channel, null);
    }
  }

  private void finish(int channel, List<byte[]> buffers) {
    if (!buffers.isEmpty()) {
      recorded.put(channel, buffers);
    }
  }
}
