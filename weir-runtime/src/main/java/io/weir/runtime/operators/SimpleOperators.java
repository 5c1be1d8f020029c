package io.weir.runtime.operators;

import io.weir.api.functions.FilterFunction;
import io.weir.api.functions.FlatMapFunction;
import io.weir.api.functions.MapFunction;
import io.weir.api.functions.SinkFunction;
import io.weir.api.sink.Sink;
import io.weir.api.sink.SinkWriter;
import io.weir.api.sink.WriterInitContext;
import io.weir.runtime.network.RecordWriter;

/** The stateless operators: map, flatMap, filter, and the two kinds of sink. */
public final class SimpleOperators {

  private SimpleOperators() {}

  /** {@code map}. */
  public static final class Map<IN, OUT> extends UdfOperator<OUT, MapFunction<IN, OUT>>
      implements OneInputOperator<IN> {
    public Map(MapFunction<IN, OUT> function) {
      super(function);
    }

    @Override
    public void processElement(IN value, long timestamp) throws Exception {
      output.collect(userFunction.map(value), timestamp);
    }
  }

  /** {@code flatMap}. */
  public static final class FlatMap<IN, OUT> extends UdfOperator<OUT, FlatMapFunction<IN, OUT>>
      implements OneInputOperator<IN> {
    private TimestampedCollector<OUT> collector;

    public FlatMap(FlatMapFunction<IN, OUT> function) {
      super(function);
    }

    @Override
    public void open() throws Exception {
      collector = new TimestampedCollector<>(output);
      super.open();
    }

    @Override
    public void processElement(IN value, long timestamp) throws Exception {
      collector.timestamp = timestamp;
      userFunction.flatMap(value, collector);
    }
  }

  /** {@code filter}. */
  public static final class Filter<T> extends UdfOperator<T, FilterFunction<T>>
      implements OneInputOperator<T> {
    public Filter(FilterFunction<T> function) {
      super(function);
    }

    @Override
    public void processElement(T value, long timestamp) throws Exception {
      if (userFunction.filter(value)) {
        output.collect(value, timestamp);
      }
    }
  }

  /** {@code addSink(SinkFunction)}. */
  public static final class SinkFn<T> extends UdfOperator<Void, SinkFunction<T>>
      implements OneInputOperator<T> {
    private final Context ctx = new Context();

    public SinkFn(SinkFunction<T> function) {
      super(function);
    }

    @Override
    public boolean commitsOnCheckpointComplete() {
      return userFunction instanceof io.weir.api.functions.CheckpointListener;
    }

    @Override
    public void processElement(T value, long timestamp) throws Exception {
      ctx.timestamp = timestamp;
      userFunction.invoke(value, ctx);
    }

    private static final class Context implements SinkFunction.Context {
      long timestamp;

      @Override
      public Long timestamp() {
        return timestamp == RecordWriter.NO_TIMESTAMP ? null : timestamp;
      }

      @Override
      public long currentProcessingTime() {
        return System.currentTimeMillis();
      }
    }
  }

  /** {@code sinkTo(Sink)}: one writer per subtask. */
  public static final class SinkTo<T> extends UdfOperator<Void, Sink<T>>
      implements OneInputOperator<T> {
    private SinkWriter<T> writer;
    private long timestamp;
    private final SinkWriter.Context ctx =
        () -> timestamp == RecordWriter.NO_TIMESTAMP ? null : timestamp;

    public SinkTo(Sink<T> sink) {
      super(sink);
    }

    @Override
    public boolean commitsOnCheckpointComplete() {
      return userFunction instanceof io.weir.api.functions.CheckpointListener;
    }

    @Override
    public void open() throws Exception {
      super.open();
      var info = context.taskInfo();
      writer =
          userFunction.createWriter(
              new WriterInitContext(
                  info.indexOfThisSubtask(),
                  info.numberOfParallelSubtasks(),
                  info.attemptNumber()));
    }

    @Override
    public void processElement(T value, long timestamp) throws Exception {
      this.timestamp = timestamp;
      writer.write(value, ctx);
    }

    @Override
    public void finish() throws Exception {
      writer.flush(true);
    }

    /** What a writer buffers belongs before the barrier: flush it into the checkpoint. */
    @Override
    protected void snapshotUserState(long checkpointId, long timestamp) throws Exception {
      writer.flush(false);
      super.snapshotUserState(checkpointId, timestamp);
    }

    @Override
    public void close() throws Exception {
      try {
        if (writer != null) {
          writer.close();
        }
      } finally {
        super.close();
      }
    }
  }
}
