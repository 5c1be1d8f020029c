package io.weir.runtime.task;

import io.weir.api.functions.TaskInfo;
import io.weir.api.graph.SourceTransformation;
import io.weir.api.source.InputStatus;
import io.weir.api.source.ReaderOutput;
import io.weir.api.source.Source;
import io.weir.api.source.SourceReader;
import io.weir.api.source.SourceReaderContext;
import io.weir.runtime.graph.JobGraph;
import io.weir.runtime.graph.JobVertex;
import io.weir.runtime.graph.UserCode;
import io.weir.runtime.network.RecordWriter;
import io.weir.runtime.operators.OperatorException;
import io.weir.runtime.operators.Output;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;

/** A task whose head is a source: polls its reader and pushes records into the chain. */
public final class SourceStreamTask<T, SplitT> extends StreamTask {

  private final Source<T, SplitT> source;
  private final List<SplitT> splits;
  private SourceReader<T, SplitT> reader;
  private SourceOutput output;
  private CompletableFuture<Void> pendingAvailability;

  /**
   * @param splits the splits this subtask reads, fresh or restored
   */
  @SuppressWarnings("unchecked")
  public SourceStreamTask(
      JobGraph graph,
      JobVertex vertex,
      TaskInfo taskInfo,
      ScheduledExecutorService timer,
      TaskListener listener,
      List<SplitT> splits) {
    super(graph, vertex, taskInfo, timer, listener);
    this.source =
        UserCode.copy(
            (Source<T, SplitT>)
                ((SourceTransformation<T>) vertex.getHead().getTransformation()).getSource(),
            vertex.getHead().getName());
    this.splits = splits;
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
      reader.addSplits(splits);
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
