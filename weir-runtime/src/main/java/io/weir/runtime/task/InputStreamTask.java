package io.weir.runtime.task;

import io.weir.api.functions.TaskInfo;
import io.weir.api.source.InputStatus;
import io.weir.api.typeutils.DataInputDeserializer;
import io.weir.api.typeutils.TypeSerializer;
import io.weir.runtime.graph.JobEdge;
import io.weir.runtime.graph.JobGraph;
import io.weir.runtime.graph.JobVertex;
import io.weir.runtime.network.Buffer;
import io.weir.runtime.network.ChannelEvent;
import io.weir.runtime.network.InputChannel;
import io.weir.runtime.network.InputGate;
import io.weir.runtime.network.RecordDeserializer;
import io.weir.runtime.network.RecordWriter;
import io.weir.runtime.operators.OneInputOperator;
import io.weir.runtime.operators.OperatorException;
import io.weir.runtime.operators.TwoInputOperator;
import java.io.IOException;
import java.util.concurrent.ScheduledExecutorService;

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
  private int finishedChannels;

  @SuppressWarnings("unchecked")
  public InputStreamTask(
      JobGraph graph,
      JobVertex vertex,
      TaskInfo taskInfo,
      ScheduledExecutorService timer,
      TaskListener listener,
      int creditsPerChannel) {
    super(graph, vertex, taskInfo, timer, listener);
    this.gate = new InputGate(waker, creditsPerChannel);
    this.serializers = new TypeSerializer[2];
    for (JobEdge edge : vertex.getInputs()) {
      int input = edge.streamEdge().inputIndex();
      if (serializers[input] == null) {
        serializers[input] =
            (TypeSerializer<Object>) edge.streamEdge().source().getOutputType().createSerializer();
      }
    }
  }

  public InputGate getInputGate() {
    return gate;
  }

  @Override
  @SuppressWarnings("unchecked")
  protected void initializeInput() {
    Object head = chain.head();
    headName = chain.head().getName();
    if (head instanceof TwoInputOperator<?, ?> two) {
      twoInput = (TwoInputOperator<Object, Object>) two;
    } else {
      oneInput = (OneInputOperator<Object>) chain.headInput();
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
      }
      InputGate.Polled polled = gate.pollNext();
      if (polled == null) {
        return finishedChannels == gate.getNumberOfChannels()
            ? InputStatus.END_OF_INPUT
            : InputStatus.NOTHING_AVAILABLE;
      }
      if (polled.element() instanceof Buffer buffer) {
        polled.channel().getDeserializer().setNextBuffer(buffer);
        current = polled.channel();
      } else if (handleEvent(polled.channel(), (ChannelEvent) polled.element())) {
        return InputStatus.END_OF_INPUT;
      }
    }
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

  /** Returns true when the event ended the whole input. */
  private boolean handleEvent(InputChannel channel, ChannelEvent event) {
    if (event instanceof ChannelEvent.EndOfPartition) {
      if (channel.getDeserializer().hasPartialRecord()) {
        throw new IllegalStateException(
            "The " + channel + " ended in the middle of a record: the stream is corrupt");
      }
      finishedChannels++;
      return finishedChannels == gate.getNumberOfChannels();
    }
    return false;
  }

  @Override
  protected void cleanup(boolean finished) throws Exception {
    for (InputChannel channel : gate.getChannels()) {
      channel.getDeserializer().clear();
    }
    super.cleanup(finished);
  }
}
