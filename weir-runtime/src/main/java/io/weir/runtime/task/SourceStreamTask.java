package io.weir.runtime.task;

import io.weir.api.functions.TaskInfo;
import io.weir.api.graph.SourceTransformation;
import io.weir.api.source.InputStatus;
import io.weir.api.source.ReaderOutput;
import io.weir.api.source.SimpleVersionedSerializer;
import io.weir.api.source.Source;
import io.weir.api.source.SourceReader;
import io.weir.api.source.SourceReaderContext;
import io.weir.runtime.checkpoint.OperatorSnapshot;
import io.weir.runtime.checkpoint.TaskRestore;
import io.weir.runtime.graph.JobGraph;
import io.weir.runtime.graph.JobVertex;
import io.weir.runtime.graph.UserCode;
import io.weir.runtime.network.RecordWriter;
import io.weir.runtime.operators.OperatorException;
import io.weir.runtime.operators.Output;
import io.weir.runtime.state.DefaultOperatorStateStore;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;

/** A task whose head is a source: polls its reader and pushes records into the chain. */
public final class SourceStreamTask<T, SplitT> extends StreamTask {

  private final Source<T, SplitT> source;
  private SourceReader<T, SplitT> reader;
  private SourceOutput output;
  private CompletableFuture<Void> pendingAvailability;

  /**
   * @param restore what the subtask restores, including the splits it reads (fresh or restored)
   */
  @SuppressWarnings("unchecked")
  public SourceStreamTask(
      JobGraph graph,
      JobVertex vertex,
      TaskInfo taskInfo,
      ScheduledExecutorService timer,
      TaskListener listener,
      TaskCheckpointing checkpointing,
      TaskRestore restore) {
    super(graph, vertex, taskInfo, timer, listener, checkpointing, restore);
    this.source =
        UserCode.copy(
            (Source<T, SplitT>)
                ((SourceTransformation<T>) vertex.getHead().getTransformation()).getSource(),
            vertex.getHead().getName());
  }

  @Override
  @SuppressWarnings("unchecked")
  protected void initializeInput() throws Exception {
    String name = vertex.getHead().getName();
    try {
      reader =
          source.createReader(
              new SourceReaderContext(
                  taskInfo.indexOfThisSubtask(),
                  taskInfo.numberOfParallelSubtasks(),
                  taskInfo.attemptNumber()));
      reader.addSplits(deserializeSplits(restored().splits(), source.getSplitSerializer()));
    } catch (Exception e) {
      throw new OperatorException(name, e);
    }
    output = new SourceOutput((Output<T>) chain.sourceOutput(), name);
  }

  @Override
  protected InputStatus processInput() throws Exception {
    try {
      return reader.pollNext(output);
    } catch (OperatorException | CancelTaskException e) {
      throw e;
    } catch (Exception e) {
      throw new OperatorException(output.name, e);
    }
  }

  /** The operator-state name under which a source keeps its splits. */
  public static final String SPLITS_STATE = "_source_splits";

  @Override
  protected void snapshotTaskState(long checkpointId, List<OperatorSnapshot> into)
      throws Exception {
    SimpleVersionedSerializer<SplitT> serializer = source.getSplitSerializer();
    List<byte[]> elements = new ArrayList<>();
    for (SplitT split : reader.snapshotState(checkpointId)) {
      elements.add(serializeSplit(split, serializer));
    }
    into.add(
        new OperatorSnapshot(
            vertex.getHead().getOperatorId(),
            vertex.getHead().getName(),
            null,
            Map.of(
                SPLITS_STATE,
                new DefaultOperatorStateStore.RestoredList(
                    DefaultOperatorStateStore.Mode.SPLIT, elements))));
  }

  /** A split as a source stores it: its serializer's version, then its bytes. */
  public static <S> byte[] serializeSplit(S split, SimpleVersionedSerializer<S> serializer)
      throws IOException {
    byte[] bytes = serializer.serialize(split);
    return ByteBuffer.allocate(4 + bytes.length).putInt(serializer.getVersion()).put(bytes).array();
  }

  /** Turns checkpointed split bytes back into splits. */
  public static <S> List<S> deserializeSplits(
      List<byte[]> elements, SimpleVersionedSerializer<S> serializer) throws IOException {
    List<S> splits = new ArrayList<>(elements.size());
    for (byte[] element : elements) {
      ByteBuffer buffer = ByteBuffer.wrap(element);
      int version = buffer.getInt();
      byte[] bytes = new byte[buffer.remaining()];
      buffer.get(bytes);
      splits.add(serializer.deserialize(version, bytes));
    }
    return splits;
  }

  @Override
  protected void notifyCheckpointComplete(long checkpointId) throws Exception {
    super.notifyCheckpointComplete(checkpointId);
    if (reader != null) {
      reader.notifyCheckpointComplete(checkpointId);
    }
  }

  @Override
  protected void waitForInput() {
    CompletableFuture<Void> available = reader.isAvailable();
    if (!available.isDone()) {
      if (available != pendingAvailability) {
        pendingAvailability = available;
        available.whenComplete((v, e) -> waker.signal());
      }
      waker.await(Long.MAX_VALUE);
    }
  }

  @Override
  protected void cleanup(boolean finished) throws Exception {
    Exception readerFailure = null;
    if (reader != null) {
      try {
        reader.close();
      } catch (Exception e) {
        readerFailure = e;
      }
    }
    super.cleanup(finished);
    if (readerFailure != null && finished) {
      throw new OperatorException(vertex.getHead().getName(), readerFailure);
    }
  }

  /** Counts records and hands them to the chain. */
  private final class SourceOutput implements ReaderOutput<T> {
    private final Output<T> chainOutput;
    private final String name;

    SourceOutput(Output<T> chainOutput, String name) {
      this.chainOutput = chainOutput;
      this.name = name;
    }

    @Override
    public void collect(T record) {
      numRecordsOut++;
      chainOutput.collect(record, RecordWriter.NO_TIMESTAMP);
    }

    @Override
    public void collect(T record, long timestamp) {
      numRecordsOut++;
      chainOutput.collect(record, timestamp);
    }
  }
}
