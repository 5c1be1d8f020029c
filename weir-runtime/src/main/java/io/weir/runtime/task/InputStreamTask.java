package io.weir.runtime.task;

import io.weir.api.functions.TaskInfo;
import io.weir.api.source.InputStatus;
import io.weir.api.typeutils.DataInputDeserializer;
import io.weir.api.typeutils.TypeSerializer;
import io.weir.runtime.checkpoint.BarrierHandler;
import io.weir.runtime.checkpoint.InFlightData;
import io.weir.runtime.checkpoint.InputChannelStateRecorder;
import io.weir.runtime.checkpoint.TaskRestore;
import io.weir.runtime.graph.JobEdge;
import io.weir.runtime.graph.JobGraph;
import io.weir.runtime.graph.JobVertex;
import io.weir.runtime.metrics.RestoreProgress;
import io.weir.runtime.network.Buffer;
import io.weir.runtime.network.ChannelEvent;
import io.weir.runtime.network.ChannelStateEntry;
import io.weir.runtime.network.CreditDepth;
import io.weir.runtime.network.InputChannel;
import io.weir.runtime.network.InputGate;
import io.weir.runtime.network.RecordDeserializer;
import io.weir.runtime.network.RecordWriter;
import io.weir.runtime.operators.OneInputOperator;
import io.weir.runtime.operators.OperatorException;
import io.weir.runtime.operators.StreamOperator;
import io.weir.runtime.operators.TwoInputOperator;
import io.weir.runtime.time.WatermarkValve;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * A task fed by the network, with one or two logical inputs: reads one record at a time from its
 * input gate and calls the head operator.
 */
public final class InputStreamTask extends StreamTask {

  private final InputGate gate;
  private final TypeSerializer<Object>[] serializers;
  private final DataInputDeserializer view = new DataInputDeserializer();
  private OneInputOperator<Object> oneInput;
  private TwoInputOperator<Object, Object> twoInput;
  private String headName;
  private InputChannel current;

  /**
   * {@link #numRecordsIn} when the buffer being read began, if that buffer is restored in-flight
   * data (an unaligned checkpoint's); -1 otherwise. Task thread.
   */
  private long replayedFrom = -1;

  private int endOfDataChannels;
  private int closedChannels;
  private BarrierHandler barriers;

  /** Event time over the input channels; touched only when watermark events arrive. */
  private WatermarkValve watermarks;

  /** The in-flight data of the input channels while an unaligned checkpoint records it. */
  private InputChannelStateRecorder recorder;

  private long firstBarrierId = -1;
  private long firstBarrierAt;
  private long lastBarrierId = -1;
  private String lastBarrierFrom;

  @SuppressWarnings("unchecked")
  public InputStreamTask(
      JobGraph graph,
      JobVertex vertex,
      TaskInfo taskInfo,
      ScheduledExecutorService timer,
      TaskListener listener,
      TaskCheckpointing checkpointing,
      TaskRestore restore,
      CreditDepth depth) {
    super(graph, vertex, taskInfo, timer, listener, checkpointing, restore);
    this.gate = new InputGate(waker, depth);
    gate.setPriorityEventListener(() -> mailbox.put(this::processPriorityEvents));
    this.serializers = new TypeSerializer[2];
    for (JobEdge edge : vertex.getInputs()) {
      int input = edge.streamEdge().inputIndex();
      if (serializers[input] == null) {
        serializers[input] =
            (TypeSerializer<Object>) edge.streamEdge().recordType().createSerializer();
      }
    }
  }

  public InputGate getInputGate() {
    return gate;
  }

  @Override
  @SuppressWarnings("unchecked")
  protected void initializeInput() {
    recorder = new InputChannelStateRecorder(gate.getChannels());
    barriers =
        new BarrierHandler(
            gate.getNumberOfChannels(),
            checkpointing.exactlyOnce(),
            checkpointing.alignment(),
            new BarrierHandler.Actions() {
              @Override
              public void alignmentStarted(long checkpointId) {
                timer()
                    .schedule(
                        () -> mailbox.put(() -> barriers.onAlignmentTimeout(checkpointId)),
                        checkpointing.alignedTimeoutMillis(),
                        TimeUnit.MILLISECONDS);
              }

              @Override
              public void startRecording(int channel) {
                recorder.start(channel);
              }

              @Override
              public void recordUnconsumed(int channel) {
                recorder.keepUnconsumed(channel, barriers.currentCheckpointId());
              }

              @Override
              public void stopRecording(int channel) {
                recorder.stop(channel, barriers.currentCheckpointId());
              }

              @Override
              public void channelStateComplete(long checkpointId) {
                inputChannelStateComplete(
                    checkpointId, new InFlightData(recorder.take(), Map.of()));
              }

              @Override
              public void block(int channel) {
                gate.block(gate.getChannels().get(channel));
              }

              @Override
              public void unblockAll() {
                gate.unblockAll();
              }

              @Override
              public void triggerCheckpoint(ChannelEvent.CheckpointBarrier barrier)
                  throws Exception {
                performCheckpoint(barrier);
              }

              @Override
              public void abortCheckpoint(long checkpointId, String reason) {
                discardPendingSnapshot(checkpointId);
                for (RecordWriter<?> writer : getWriters()) {
                  writer.broadcastEvent(new ChannelEvent.CancelCheckpointMarker(checkpointId));
                }
              }
            });
    StreamOperator<?> headOperator = chain.head();
    watermarks =
        new WatermarkValve(
            gate.getNumberOfChannels(),
            new WatermarkValve.Output() {
              @Override
              public void emitWatermark(long watermark) {
                ioMetrics().inputWatermark(watermark);
                try {
                  headOperator.processWatermark(watermark);
                } catch (OperatorException | CancelTaskException e) {
                  throw e;
                } catch (Exception e) {
                  throw new OperatorException(headName, e);
                }
              }

              @Override
              public void emitWatermarkStatus(boolean idle) {
                try {
                  headOperator.processWatermarkStatus(idle);
                } catch (OperatorException | CancelTaskException e) {
                  throw e;
                } catch (Exception e) {
                  throw new OperatorException(headName, e);
                }
              }
            });
    Object head = chain.head();
    headName = chain.head().getName();
    if (head instanceof TwoInputOperator<?, ?> two) {
      twoInput = (TwoInputOperator<Object, Object>) two;
    } else {
      oneInput = (OneInputOperator<Object>) chain.headInput();
    }
    replayInputChannelState();
  }

  /**
   * An unaligned checkpoint's input channel state: event time goes back to where it stood at the
   * snapshot (the operators get that watermark before anything else), then each channel's recorded
   * buffers and events are read before anything it receives.
   */
  private void replayInputChannelState() {
    Map<Integer, List<ChannelStateEntry>> inputs = restored().inFlight().inputs();
    if (inputs.isEmpty()) {
      return;
    }
    WatermarkValve.Position[] cut = new WatermarkValve.Position[gate.getNumberOfChannels()];
    int cuts = 0;
    for (InputChannel channel : gate.getChannels()) {
      List<ChannelStateEntry> entries = inputs.get(channel.getChannelIndex());
      if (entries == null) {
        continue;
      }
      if (!entries.isEmpty() && entries.get(0) instanceof ChannelStateEntry.Cut c) {
        cut[channel.getChannelIndex()] = c.position();
        cuts++;
        entries = entries.subList(1, entries.size());
      }
      channel.prependForReplay(entries);
    }
    // Checkpoints written before the cut was kept have none: event time then starts afresh.
    if (cuts == cut.length) {
      watermarks.restore(cut);
    }
  }

  @Override
  protected InputStatus processInput() throws Exception {
    while (true) {
      InputChannel channel = current;
      if (channel != null) {
        RecordDeserializer deserializer = channel.getDeserializer();
        if (deserializer.nextRecord(view)) {
          processRecord(channel.getInputIndex());
          return InputStatus.MORE_AVAILABLE;
        }
        current = null;
        if (replayedFrom >= 0) {
          replayedBufferRead();
        }
      }
      InputGate.Polled polled = gate.pollNext();
      if (polled == null) {
        return InputStatus.NOTHING_AVAILABLE;
      }
      if (polled.element() instanceof Buffer buffer) {
        numBytesIn += buffer.size();
        recorder.onBuffer(polled.channel().getChannelIndex(), buffer);
        polled.channel().getDeserializer().setNextBuffer(buffer);
        current = polled.channel();
        if (polled.replayed()) {
          replayedFrom = numRecordsIn;
        }
      } else if (polled.element() instanceof InputChannel.Failed failed) {
        throw new IllegalStateException(
            "The input "
                + polled.channel()
                + " of "
                + taskInfo.taskNameWithSubtasks()
                + " failed: "
                + failed.cause().getMessage(),
            failed.cause());
      } else if (handleEvent(polled.channel(), (ChannelEvent) polled.element())) {
        return InputStatus.END_OF_INPUT;
      }
    }
  }

  /**
   * Mail sent when an overtaking barrier arrives: it is handled between two records, not after the
   * buffer being read, and the rest of that buffer becomes in-flight data of the checkpoint (see
   * {@link InputChannelStateRecorder}). A barrier polled in turn since needs nothing more here.
   */
  private void processPriorityEvents() throws Exception {
    InputGate.Polled polled;
    while (barriers != null && (polled = gate.pollPriority()) != null) {
      handleEvent(polled.channel(), (ChannelEvent) polled.element());
    }
  }

  /**
   * A buffer of restored in-flight data was read to its end: its records count as replayed. Counted
   * per buffer, never per record (a buffer's records are read one after the other, and none spans
   * the end of the in-flight data, which was cut at a barrier).
   */
  private void replayedBufferRead() {
    RestoreProgress progress = ioMetrics().restore();
    if (progress != null) {
      progress.replayed(numRecordsIn - replayedFrom);
    }
    replayedFrom = -1;
  }

  private void processRecord(int input) throws IOException {
    long timestamp = RecordWriter.NO_TIMESTAMP;
    if (current.getDeserializer().lastRecordHasTimestamp()) {
      timestamp = view.readLong();
    }
    Object record = serializers[input].deserialize(view);
    numRecordsIn++;
    try {
      if (oneInput != null) {
        oneInput.processElement(record, timestamp);
      } else if (input == 0) {
        twoInput.processElement1(record, timestamp);
      } else {
        twoInput.processElement2(record, timestamp);
      }
    } catch (OperatorException | CancelTaskException e) {
      throw e;
    } catch (Exception e) {
      throw new OperatorException(headName, e);
    }
  }

  /** Returns true when the event ended the data of the whole input. */
  private boolean handleEvent(InputChannel channel, ChannelEvent event) throws Exception {
    if (event instanceof ChannelEvent.Watermark watermark) {
      recorder.onEvent(channel.getChannelIndex(), event);
      watermarks.inputWatermark(channel.getChannelIndex(), watermark.timestamp());
    } else if (event instanceof ChannelEvent.WatermarkStatus status) {
      recorder.onEvent(channel.getChannelIndex(), event);
      watermarks.inputStatus(channel.getChannelIndex(), status.idle());
    } else if (event instanceof ChannelEvent.CheckpointBarrier barrier) {
      if (barrier.checkpointId() > firstBarrierId) {
        firstBarrierId = barrier.checkpointId();
        firstBarrierAt = System.currentTimeMillis();
      }
      lastBarrierId = barrier.checkpointId();
      lastBarrierFrom = channel.getProducerDescription();
      recorder.barrierArriving(channel.getChannelIndex(), barrier.checkpointId());
      try {
        barriers.onBarrier(channel.getChannelIndex(), barrier);
      } finally {
        recorder.barrierHandled(channel.getChannelIndex());
      }
    } else if (event instanceof ChannelEvent.CancelCheckpointMarker cancel) {
      barriers.onCancel(channel.getChannelIndex(), cancel);
    } else if (event instanceof ChannelEvent.EndOfData) {
      if (channel.getDeserializer().hasPartialRecord()) {
        throw new IllegalStateException(
            "The " + channel + " ended in the middle of a record: the stream is corrupt");
      }
      endOfDataChannels++;
      // An ended channel no longer holds event time back; when all ended, every timer fires.
      watermarks.inputEnded(channel.getChannelIndex());
      return endOfDataChannels == gate.getNumberOfChannels();
    } else if (event instanceof ChannelEvent.EndOfPartition) {
      closedChannels++;
      barriers.onChannelClosed(channel.getChannelIndex());
    }
    return false;
  }

  @Override
  protected InputStatus processFinalInput() throws Exception {
    InputStatus status = processInput();
    if (status == InputStatus.MORE_AVAILABLE) {
      throw new IllegalStateException(
          "Task " + taskInfo.taskNameWithSubtasks() + " received a record after end of data");
    }
    return status;
  }

  @Override
  protected boolean isInputClosed() {
    return closedChannels == gate.getNumberOfChannels();
  }

  @Override
  protected long firstBarrierMillis(long checkpointId, long now) {
    return checkpointId == firstBarrierId ? firstBarrierAt : now;
  }

  @Override
  protected String lastBarrierFrom(long checkpointId) {
    return checkpointId == lastBarrierId ? lastBarrierFrom : null;
  }

  @Override
  protected boolean holdForChannelState(ChannelEvent.CheckpointBarrier barrier) {
    if (barrier.unaligned() && barriers.state() == BarrierHandler.State.UNALIGNED) {
      recorder.clear(); // whatever an earlier, given-up checkpoint recorded
      WatermarkValve.Position[] cut = new WatermarkValve.Position[gate.getNumberOfChannels()];
      for (int c = 0; c < cut.length; c++) {
        cut[c] = watermarks.position(c);
      }
      recorder.cut(cut);
      return true;
    }
    return false;
  }

  @Override
  protected void notifyCheckpointAborted(long checkpointId) throws Exception {
    barriers.abort(checkpointId);
    super.notifyCheckpointAborted(checkpointId);
  }

  @Override
  protected void cleanup(boolean finished) throws Exception {
    for (InputChannel channel : gate.getChannels()) {
      channel.getDeserializer().clear();
    }
    super.cleanup(finished);
  }
}
