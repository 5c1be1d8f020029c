package io.weir.runtime.task;

import io.weir.api.config.CoreOptions;
import io.weir.api.eventtime.WatermarkStrategy;
import io.weir.api.functions.TaskInfo;
import io.weir.api.graph.SourceTransformation;
import io.weir.api.source.InputStatus;
import io.weir.api.source.ReaderOutput;
import io.weir.api.source.SimpleVersionedSerializer;
import io.weir.api.source.Source;
import io.weir.api.source.SourceReader;
import io.weir.api.source.SourceReaderContext;
import io.weir.runtime.checkpoint.OperatorSnapshot;
import io.weir.runtime.checkpoint.SerializedSplits;
import io.weir.runtime.checkpoint.TaskRestore;
import io.weir.runtime.graph.JobGraph;
import io.weir.runtime.graph.JobVertex;
import io.weir.runtime.graph.UserCode;
import io.weir.runtime.metrics.OperatorMetrics;
import io.weir.runtime.network.RecordWriter;
import io.weir.runtime.operators.OperatorException;
import io.weir.runtime.operators.Output;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/** A task whose head is a source: polls its reader and pushes records into the chain. */
public final class SourceStreamTask<T, SplitT> extends StreamTask {

  private final Source<T, SplitT> source;
  private SourceReader<T, SplitT> reader;
  private SourceOutput output;
  private CompletableFuture<Void> pendingAvailability;

  /** The splits this subtask reads, as restored or freshly assigned; task thread. */
  private List<SplitT> splits;

  /** Event time of this subtask; null when the source has no watermark strategy. */
  private SourceWatermarks<T> watermarks;

  private ScheduledFuture<?> periodicWatermarks;
  private final AtomicBoolean periodicPending = new AtomicBoolean();

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
                  taskInfo.attemptNumber(),
                  OperatorMetrics.of(
                      ioMetrics().userMetrics(),
                      graph.jobName(),
                      taskInfo,
                      name,
                      vertex.getHead().getOperatorId())));
      splits = deserializeSplits(restored().splits(), source.getSplitSerializer());
      reader.addSplits(splits);
    } catch (Exception e) {
      throw new OperatorException(name, e);
    }
    Output<T> chainOutput = (Output<T>) chain.sourceOutput();
    WatermarkStrategy<T> strategy =
        ((SourceTransformation<T>) vertex.getHead().getTransformation()).getWatermarkStrategy();
    if (strategy != null && strategy.emitsWatermarks()) {
      watermarks =
          new SourceWatermarks<>(
              UserCode.copy(strategy, name),
              chainOutput,
              taskInfo.indexOfThisSubtask(),
              taskInfo.numberOfParallelSubtasks());
      watermarks.onEmit(ioMetrics()::outputWatermark);
      if (splits instanceof RestoredSplits<SplitT> restored) {
        watermarks.restore(restored.watermarks);
      }
      if (splits.isEmpty()) {
        watermarks.markIdleWithoutSplits();
      }
      long interval = graph.configuration().get(CoreOptions.AUTO_WATERMARK_INTERVAL).toMillis();
      if (interval > 0) {
        periodicWatermarks =
            timer()
                .scheduleAtFixedRate(
                    () -> {
                      if (periodicPending.compareAndSet(false, true)) {
                        mailbox.put(this::emitPeriodicWatermarks);
                      }
                    },
                    interval,
                    interval,
                    TimeUnit.MILLISECONDS);
      }
    }
    output = new SourceOutput(chainOutput, name);
  }

  private void emitPeriodicWatermarks() {
    periodicPending.set(false);
    if (isSuspendedForSavepoint()) {
      return; // nothing follows the barrier of a stop-with-savepoint
    }
    try {
      watermarks.onPeriodicEmit();
    } catch (OperatorException | CancelTaskException e) {
      throw e;
    } catch (RuntimeException e) {
      throw new OperatorException(vertex.getHead().getName(), e);
    }
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

  @Override
  protected void snapshotTaskState(long checkpointId, List<OperatorSnapshot> into)
      throws Exception {
    SimpleVersionedSerializer<SplitT> serializer = source.getSplitSerializer();
    List<byte[]> splitElements = new ArrayList<>();
    for (SplitT split : reader.snapshotState(checkpointId)) {
      splitElements.add(serializeSplit(split, serializer));
    }
    List<byte[]> watermarkElements = new ArrayList<>();
    if (watermarks != null) {
      for (SourceWatermarks.Entry entry : watermarks.snapshot()) {
        watermarkElements.add(
            SerializedSplits.element(SerializedSplits.WATERMARK_VERSION, entry.toBytes()));
      }
    }
    into.add(
        new OperatorSnapshot(
            vertex.getHead().getOperatorId(),
            vertex.getHead().getName(),
            null,
            Map.of(),
            null,
            new SerializedSplits(splitElements, watermarkElements)));
  }

  /** A split as a source stores it: its serializer's version, then its bytes. */
  public static <S> byte[] serializeSplit(S split, SimpleVersionedSerializer<S> serializer)
      throws IOException {
    return SerializedSplits.element(serializer.getVersion(), serializer.serialize(split));
  }

  /** Turns one checkpointed split element back into a split. */
  public static <S> S deserializeSplit(byte[] element, SimpleVersionedSerializer<S> serializer)
      throws IOException {
    return serializer.deserialize(
        SerializedSplits.version(element), SerializedSplits.body(element));
  }

  /**
   * Turns checkpointed splits back into splits; the split watermarks travel with the returned list
   * to the task.
   */
  public static <S> List<S> deserializeSplits(
      SerializedSplits elements, SimpleVersionedSerializer<S> serializer) throws IOException {
    RestoredSplits<S> splits = new RestoredSplits<>();
    for (byte[] element : elements.splits()) {
      splits.add(deserializeSplit(element, serializer));
    }
    for (byte[] element : elements.watermarks()) {
      if (!SerializedSplits.isReadableWatermark(element)) {
        throw new IOException(
            "A split watermark has format version "
                + SerializedSplits.version(element)
                + ", which this Weir does not read; restore with the Weir that wrote it or newer");
      }
      splits.watermarks.add(SourceWatermarks.Entry.fromBytes(SerializedSplits.body(element)));
    }
    return splits;
  }

  /** Restored splits, with the split watermarks that were checkpointed next to them. */
  @SuppressWarnings("serial") // never serialized
  private static final class RestoredSplits<S> extends ArrayList<S> {
    final transient List<SourceWatermarks.Entry> watermarks = new ArrayList<>();
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
    if (periodicWatermarks != null) {
      periodicWatermarks.cancel(false);
    }
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
    /**
     * Where records go; with watermarks, the reader's own output is created at its first record
     * (null until then), so a reader that emits only through split outputs, or a subtask without
     * splits, is not held at the start of time by an output that never gets a record.
     */
    private ReaderOutput<T> chainOutput;

    private final String name;

    SourceOutput(Output<T> chain, String name) {
      this.chainOutput = watermarks == null ? new ChainReaderOutput<>(chain) : null;
      this.name = name;
    }

    SourceOutput(ReaderOutput<T> chainOutput, String name) {
      this.chainOutput = chainOutput;
      this.name = name;
    }

    @Override
    public void collect(T record) {
      target().collect(record, RecordWriter.NO_TIMESTAMP);
    }

    @Override
    public void collect(T record, long timestamp) {
      target().collect(record, timestamp);
    }

    private ReaderOutput<T> target() {
      ReaderOutput<T> target = chainOutput;
      if (target == null) {
        target = watermarks.main();
        chainOutput = target;
      }
      return target;
    }

    @Override
    public ReaderOutput<T> createOutputForSplit(String splitId) {
      return watermarks == null ? this : new SourceOutput(watermarks.output(splitId), name);
    }

    @Override
    public void releaseOutputForSplit(String splitId) {
      if (watermarks != null) {
        watermarks.release(splitId);
      }
    }
  }

  /** The chain's output as a reader output: the path of a source without watermarks. */
  private static final class ChainReaderOutput<T> implements ReaderOutput<T> {
    private final Output<T> chain;

    ChainReaderOutput(Output<T> chain) {
      this.chain = chain;
    }

    @Override
    public void collect(T record) {
      chain.collect(record, RecordWriter.NO_TIMESTAMP);
    }

    @Override
    public void collect(T record, long timestamp) {
      chain.collect(record, timestamp);
    }
  }
}
