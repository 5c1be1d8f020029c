package io.weir.runtime.checkpoint;

import io.weir.runtime.network.Buffer;
import io.weir.runtime.network.ChannelEvent;
import io.weir.runtime.network.ChannelStateEntry;
import io.weir.runtime.network.InputChannel;
import io.weir.runtime.time.WatermarkValve;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The input side of an unaligned checkpoint's in-flight data: per input channel, the bytes and the
 * events of event time that arrive after the task's snapshot and before that channel's barrier.
 * {@link BarrierHandler} says when a channel starts and stops (through its {@link
 * BarrierHandler.Actions}); the task shows the recorder every buffer and event it takes from its
 * gate. A recording starts at a record boundary — a record the snapshot cut in two is recorded
 * whole — so replaying it into a fresh deserializer, before any new input, continues the channel's
 * stream exactly where the snapshot cut it. Each channel's entries start with its {@link
 * ChannelStateEntry.Cut}: where event time stood when the snapshot was taken ({@link #cut}), so
 * that the restored task judges the replayed records against the watermark they had.
 *
 * <p>Task thread only.
 */
public final class InputChannelStateRecorder {

  private final List<InputChannel> channels;

  /** Per channel: its recording while its barrier is missing, else null. */
  private final List<List<ChannelStateEntry>> recording;

  /**
   * Per channel, while the task handles a barrier from it: the buffers that barrier overtook in the
   * channel's queue after they came over the network (see {@link InputChannel#takeOvertaken}).
   */
  private final List<List<ChannelStateEntry>> overtaken;

  /** Per channel, the checkpoint whose barrier {@link #overtaken} belongs to. */
  private final long[] overtakenBy;

  /** What finished channels recorded since the last {@link #take()} or {@link #clear()}. */
  private final Map<Integer, List<ChannelStateEntry>> recorded = new TreeMap<>();

  /** Per channel, event time at the snapshot of the checkpoint being recorded; null before one. */
  private final ChannelStateEntry.Cut[] cuts;

  /**
   * @param channels the task's input channels, by gate channel index
   */
  public InputChannelStateRecorder(List<InputChannel> channels) {
    this.channels = List.copyOf(channels);
    this.recording = new ArrayList<>(channels.size());
    this.overtaken = new ArrayList<>(channels.size());
    this.overtakenBy = new long[channels.size()];
    this.cuts = new ChannelStateEntry.Cut[channels.size()];
    for (int c = 0; c < channels.size(); c++) {
      recording.add(null);
      overtaken.add(null);
    }
  }

  /**
   * The task took the snapshot of an unaligned checkpoint: where event time stands now on each
   * channel ({@code positions}, by channel) leads that channel's in-flight data, even a channel
   * that records nothing more.
   */
  public void cut(WatermarkValve.Position[] positions) {
    for (int c = 0; c < cuts.length; c++) {
      cuts[c] = new ChannelStateEntry.Cut(positions[c]);
    }
  }

  /**
   * From now on the data of {@code channel} up to its barrier is in flight, starting with what its
   * deserializer holds already (a partly received record, the rest of the current buffer).
   */
  public void start(int channel) {
    List<ChannelStateEntry> entries = new ArrayList<>();
    addUnconsumed(channel, entries);
    recording.set(channel, entries);
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
    List<ChannelStateEntry> entries = recording.get(channel);
    if (entries != null) {
      entries.add(new ChannelStateEntry.Bytes(buffer.copyOfContent()));
    }
  }

  /**
   * The task took {@code event} from {@code channel}: an event of event time is kept in its place
   * while the channel is recorded.
   */
  public void onEvent(int channel, ChannelEvent event) {
    List<ChannelStateEntry> entries = recording.get(channel);
    if (entries != null && ChannelStateEntry.isRecorded(event)) {
      entries.add(new ChannelStateEntry.Event(event));
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
    List<ChannelStateEntry> entries = new ArrayList<>(1);
    addUnconsumed(channel, entries);
    addOvertaken(channel, checkpointId, entries);
    finish(channel, entries);
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
    List<ChannelStateEntry> entries = recording.get(channel);
    recording.set(channel, null);
    if (entries != null) {
      addOvertaken(channel, checkpointId, entries);
      finish(channel, entries);
    }
  }

  /** True while {@code channel} is being recorded. */
  public boolean isRecording(int channel) {
    return recording.get(channel) != null;
  }

  /**
   * The in-flight data of the channels that finished since the last call, by channel index: each
   * channel's {@link #cut} followed by what it recorded (channels without either are left out); the
   * recorder forgets it.
   */
  public Map<Integer, List<ChannelStateEntry>> take() {
    Map<Integer, List<ChannelStateEntry>> out = new TreeMap<>();
    for (int c = 0; c < cuts.length; c++) {
      if (cuts[c] != null) {
        List<ChannelStateEntry> entries = new ArrayList<>();
        entries.add(cuts[c]);
        entries.addAll(recorded.getOrDefault(c, List.of()));
        out.put(c, entries);
        cuts[c] = null;
      }
    }
    recorded.forEach(out::putIfAbsent);
    recorded.clear();
    return out;
  }

  /** Forgets every recording and result: a new checkpoint starts or the last one was given up. */
  public void clear() {
    for (int c = 0; c < recording.size(); c++) {
      recording.set(c, null);
    }
    recorded.clear();
    Arrays.fill(cuts, null);
  }

  private void addUnconsumed(int channel, List<ChannelStateEntry> into) {
    byte[] unconsumed = channels.get(channel).getDeserializer().captureUnconsumed();
    if (unconsumed.length > 0) {
      into.add(new ChannelStateEntry.Bytes(unconsumed));
    }
  }

  /** The overtaken buffers queued behind what the task read of the channel come after it. */
  private void addOvertaken(int channel, long checkpointId, List<ChannelStateEntry> into) {
    List<ChannelStateEntry> entries = overtaken.get(channel);
    if (entries != null && overtakenBy[channel] == checkpointId) {
      into.addAll(entries);
      overtaken.set(channel, null);
    }
  }

  private void finish(int channel, List<ChannelStateEntry> entries) {
    if (!entries.isEmpty()) {
      recorded.put(channel, entries);
    }
  }
}
