package io.weir.api;

import io.weir.api.config.CoreOptions;
import io.weir.api.eventtime.WatermarkStrategy;
import io.weir.api.functions.FilterFunction;
import io.weir.api.functions.FlatMapFunction;
import io.weir.api.functions.KeySelector;
import io.weir.api.functions.MapFunction;
import io.weir.api.functions.ProcessFunction;
import io.weir.api.functions.SinkFunction;
import io.weir.api.graph.KeyContext;
import io.weir.api.graph.OneInputTransformation;
import io.weir.api.graph.Operation;
import io.weir.api.graph.PartitionTransformation;
import io.weir.api.graph.Partitioning;
import io.weir.api.graph.Transformation;
import io.weir.api.graph.UnionTransformation;
import io.weir.api.sink.PrintSink;
import io.weir.api.sink.Sink;
import io.weir.api.typeutils.TypeExtractor;
import io.weir.api.typeutils.TypeInformation;
import io.weir.api.typeutils.TypeSerializer;
import io.weir.api.typeutils.Types;
import io.weir.api.util.CloseableIterator;
import io.weir.api.windowing.assigners.GlobalWindows;
import io.weir.api.windowing.assigners.WindowAssigner;
import io.weir.api.windowing.evictors.CountEvictor;
import io.weir.api.windowing.triggers.CountTrigger;
import io.weir.api.windowing.triggers.PurgingTrigger;
import io.weir.api.windowing.windows.GlobalWindow;
import io.weir.api.windowing.windows.Window;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A stream of elements of one type, and the operations that make new streams from it. Nothing runs
 * until {@link StreamEnvironment#execute}.
 */
public class DataStream<T> {

  protected final StreamEnvironment environment;
  protected final Transformation<T> transformation;

  protected DataStream(StreamEnvironment environment, Transformation<T> transformation) {
    this.environment = Objects.requireNonNull(environment);
    this.transformation = Objects.requireNonNull(transformation);
  }

  public StreamEnvironment getEnvironment() {
    return environment;
  }

  public Transformation<T> getTransformation() {
    return transformation;
  }

  /** The element type; it may be missing until {@code returns(...)} is called. */
  public TypeInformation<T> getType() {
    return transformation.getOutputType();
  }

  public <R> SingleOutputStreamOperator<R> map(MapFunction<T, R> mapper) {
    Objects.requireNonNull(mapper, "map function");
    return transform(
        "Map",
        new Operation.Map<>(mapper),
        TypeExtractor.getOutputType(mapper, MapFunction.class, 1, "Map"));
  }

  public <R> SingleOutputStreamOperator<R> flatMap(FlatMapFunction<T, R> flatMapper) {
    Objects.requireNonNull(flatMapper, "flatMap function");
    return transform(
        "Flat Map",
        new Operation.FlatMap<>(flatMapper),
        TypeExtractor.getOutputType(flatMapper, FlatMapFunction.class, 1, "Flat Map"));
  }

  /**
   * {@code map(mapper)} with the result type given rather than extracted, as in Flink: for a lambda
   * whose result type erasure hides.
   */
  public <R> SingleOutputStreamOperator<R> map(
      MapFunction<T, R> mapper, TypeInformation<R> outputType) {
    Objects.requireNonNull(mapper, "map function");
    return transform("Map", new Operation.Map<>(mapper), requireType(outputType, "Map"));
  }

  /**
   * {@code flatMap(flatMapper)} with the result type given rather than extracted, as in Flink: a
   * lambda's {@code Collector<R>} leaves nothing to extract.
   */
  public <R> SingleOutputStreamOperator<R> flatMap(
      FlatMapFunction<T, R> flatMapper, TypeInformation<R> outputType) {
    Objects.requireNonNull(flatMapper, "flatMap function");
    return transform(
        "Flat Map", new Operation.FlatMap<>(flatMapper), requireType(outputType, "Flat Map"));
  }

  private static <R> TypeInformation<R> requireType(TypeInformation<R> type, String operator) {
    return Objects.requireNonNull(
        type, () -> "The result type given to " + operator + " is null: give a TypeInformation");
  }

  public SingleOutputStreamOperator<T> filter(FilterFunction<T> filter) {
    Objects.requireNonNull(filter, "filter function");
    return transform("Filter", new Operation.Filter<>(filter), getType());
  }

  public <R> SingleOutputStreamOperator<R> process(ProcessFunction<T, R> function) {
    Objects.requireNonNull(function, "process function");
    return transform(
        "Process",
        new Operation.Process<>(function),
        TypeExtractor.getOutputType(function, ProcessFunction.class, 1, "Process"));
  }

  /** {@code process(function)} with the result type given rather than extracted, as in Flink. */
  public <R> SingleOutputStreamOperator<R> process(
      ProcessFunction<T, R> function, TypeInformation<R> outputType) {
    Objects.requireNonNull(function, "process function");
    return transform(
        "Process", new Operation.Process<>(function), requireType(outputType, "Process"));
  }

  /** Partitions the stream by key: elements with equal keys go to the same subtask. */
  public <K> KeyedStream<T, K> keyBy(KeySelector<T, K> keySelector) {
    Objects.requireNonNull(keySelector, "key selector");
    TypeInformation<K> keyType =
        TypeExtractor.getOutputType(keySelector, KeySelector.class, 1, "Key Selector");
    return keyBy(keySelector, keyType);
  }

  /** {@link #keyBy(KeySelector)} with the key type given explicitly. */
  public <K> KeyedStream<T, K> keyBy(KeySelector<T, K> keySelector, TypeInformation<K> keyType) {
    return new KeyedStream<>(environment, transformation, new KeyContext<>(keySelector, keyType));
  }

  /**
   * Gives the records timestamps and the stream watermarks, as Flink's {@code
   * assignTimestampsAndWatermarks}: watermarks from upstream are replaced by the ones this strategy
   * generates in each parallel subtask. Prefer a strategy on the source ({@code fromSource(source,
   * strategy, name)}), where watermarks follow each split.
   */
  public SingleOutputStreamOperator<T> assignTimestampsAndWatermarks(
      WatermarkStrategy<T> watermarkStrategy) {
    Objects.requireNonNull(watermarkStrategy, "watermark strategy");
    long interval =
        environment.getConfiguration().get(CoreOptions.AUTO_WATERMARK_INTERVAL).toMillis();
    return transform(
        "Timestamps/Watermarks",
        new Operation.AssignTimestamps<>(watermarkStrategy, interval),
        getType());
  }

  /**
   * Windows over the whole stream (not keyed): one operator with parallelism 1 sees every element,
   * as Flink's {@code windowAll}.
   */
  public <W extends Window> AllWindowedStream<T, W> windowAll(
      WindowAssigner<? super T, W> assigner) {
    KeyedStream<T, Byte> single = keyBy(new AllWindowKey<>(), Types.BYTE);
    return new AllWindowedStream<>(new WindowedStream<>(single, assigner));
  }

  /**
   * Windows of {@code size} elements over the whole stream (tumbling), as Flink's {@code
   * countWindowAll(size)}; one operator with parallelism 1 sees every element.
   */
  public AllWindowedStream<T, GlobalWindow> countWindowAll(long size) {
    KeyedStream.checkCount(size, "size");
    return windowAll(GlobalWindows.create()).trigger(PurgingTrigger.of(CountTrigger.of(size)));
  }

  /**
   * Sliding windows of the last {@code size} elements of the stream, firing every {@code slide}.
   */
  public AllWindowedStream<T, GlobalWindow> countWindowAll(long size, long slide) {
    KeyedStream.checkCount(size, "size");
    KeyedStream.checkCount(slide, "slide");
    return windowAll(GlobalWindows.create())
        .evictor(CountEvictor.of(size))
        .trigger(CountTrigger.of(slide));
  }

  /** The one key of {@code windowAll}. */
  private static final class AllWindowKey<T> implements KeySelector<T, Byte> {
    private static final long serialVersionUID = 1L;

    @Override
    public Byte getKey(T value) {
      return 0;
    }
  }

  /** The elements of this stream and the others, in no particular order. */
  @SafeVarargs
  public final DataStream<T> union(DataStream<T>... others) {
    List<Transformation<T>> inputs = new ArrayList<>();
    inputs.add(transformation);
    for (DataStream<T> other : others) {
      if (!other.getType().isMissing()
          && !getType().isMissing()
          && !other.getType().equals(getType())) {
        throw new IllegalArgumentException(
            "Cannot union streams of different types: "
                + getType()
                + " and "
                + other.getType()
                + ". Map them to one type first.");
      }
      inputs.add(other.transformation);
    }
    return new DataStream<>(environment, new UnionTransformation<>(inputs));
  }

  /**
   * A window join with {@code other}: {@code join(other).where(key1).equalTo(key2)
   * .window(assigner).apply(function)}, as in Flink.
   */
  public <T2> JoinedStreams<T, T2> join(DataStream<T2> other) {
    return new JoinedStreams<>(this, other);
  }

  /**
   * A window coGroup with {@code other}: {@code coGroup(other).where(key1).equalTo(key2)
   * .window(assigner).apply(function)}, as in Flink; the function gets all elements of both sides
   * per key and window, either side possibly empty.
   */
  public <T2> CoGroupedStreams<T, T2> coGroup(DataStream<T2> other) {
    return new CoGroupedStreams<>(this, other);
  }

  /** Pairs this stream with another for a two-input {@code process}. */
  public <R> ConnectedStreams<T, R> connect(DataStream<R> other) {
    return new ConnectedStreams<>(environment, this, other);
  }

  /** Spreads elements round robin over the next operator's subtasks. */
  public DataStream<T> rebalance() {
    return partition(new Partitioning.Rebalance());
  }

  /** Sends every element to every subtask of the next operator. */
  public DataStream<T> broadcast() {
    return partition(new Partitioning.Broadcast());
  }

  /** Sends each element to a uniformly random subtask of the next operator. */
  public DataStream<T> shuffle() {
    return partition(new Partitioning.Shuffle());
  }

  /**
   * Spreads elements round robin over a subset of the next operator's subtasks, as Flink's {@code
   * rescale()}: from 2 subtasks to 4, subtask 0 feeds 0 and 1, subtask 1 feeds 2 and 3; from 4 to
   * 2, subtasks 0 and 1 feed 0, subtasks 2 and 3 feed 1. As in Flink the connection is pointwise: a
   * subtask of the next operator has input channels only from the subtasks that feed it, and aligns
   * checkpoint barriers over those alone. Cheaper than {@link #rebalance()}, which connects every
   * subtask to every one.
   */
  public DataStream<T> rescale() {
    return partition(new Partitioning.Rescale());
  }

  /** Sends every element to the first subtask of the next operator. */
  public DataStream<T> global() {
    return partition(new Partitioning.Global());
  }

  /** Keeps elements in their subtask; the next operator must have the same parallelism. */
  public DataStream<T> forward() {
    return partition(new Partitioning.Forward());
  }

  private DataStream<T> partition(Partitioning partitioning) {
    return new DataStream<>(
        environment, new PartitionTransformation<>(transformation, partitioning));
  }

  public DataStreamSink<T> sinkTo(Sink<T> sink) {
    Objects.requireNonNull(sink, "sink");
    return addSinkTransformation("Sink", new Operation.SinkTo<>(sink));
  }

  public DataStreamSink<T> addSink(SinkFunction<T> sinkFunction) {
    Objects.requireNonNull(sinkFunction, "sink function");
    return addSinkTransformation("Sink", new Operation.SinkFn<>(sinkFunction));
  }

  /** Prints every element to standard output. */
  public DataStreamSink<T> print() {
    return sinkTo(new PrintSink<>()).name("Print to Std. Out");
  }

  /**
   * Runs the job (everything defined on this stream's environment) and returns this stream's
   * elements as they come, as Flink's {@code executeAndCollect()}: a collect sink of parallelism 1
   * sends them to the returned iterator, wherever the job runs (local execution, or a cluster whose
   * JobManager runs this program); the iterator ends when the job ends and throws the job's
   * failure. Closing the iterator cancels the job if it still runs. With checkpointing an element
   * is returned once a checkpoint after it completed (or the job finished), and a restart neither
   * repeats nor loses one; without, elements returned before a restart come again.
   */
  public CloseableIterator<T> executeAndCollect() throws Exception {
    return executeAndCollect(environment.defaultJobName());
  }

  /** {@link #executeAndCollect()} with the job's name. */
  public CloseableIterator<T> executeAndCollect(String jobExecutionName) throws Exception {
    StreamEnvironment.requireType(getType());
    TypeSerializer<T> serializer = getType().createSerializer();
    // A TaskManager re-runs the program to build the plan: the key is the same there, and the
    // JobManager's value of it (this program's address) overrides the one set there.
    int index = CollectSink.definedIn(environment.getConfiguration());
    String key = CollectSink.addressKey(index);
    CollectResultIterator<T> iterator = CollectResultIterator.open(serializer);
    try {
      environment.getConfiguration().setString(key, iterator.address());
      sinkTo(new CollectSink<T>(key, CollectSink.snapshotOf(serializer)))
          .name("Collect Sink")
          .uid("collect-sink-" + index)
          .setParallelism(1);
      return iterator.start(environment.executeAsync(jobExecutionName));
    } catch (Exception | Error e) {
      iterator.close();
      throw e;
    }
  }

  /**
   * Runs the job and returns its first {@code limit} elements of this stream (fewer if the job ends
   * before), then cancels the job, as Flink's {@code executeAndCollect(int limit)}; works for
   * unbounded streams.
   */
  public List<T> executeAndCollect(int limit) throws Exception {
    return executeAndCollect(environment.defaultJobName(), limit);
  }

  /** {@link #executeAndCollect(int)} with the job's name. */
  public List<T> executeAndCollect(String jobExecutionName, int limit) throws Exception {
    if (limit < 1) {
      throw new IllegalArgumentException(
          "executeAndCollect(limit): the limit must be at least 1, but was "
              + limit
              + "; use executeAndCollect() for all elements");
    }
    List<T> results = new ArrayList<>(Math.min(limit, CollectSink.CAPACITY));
    try (CloseableIterator<T> iterator = executeAndCollect(jobExecutionName)) {
      while (results.size() < limit && iterator.hasNext()) {
        results.add(iterator.next());
      }
    }
    return results;
  }

  private DataStreamSink<T> addSinkTransformation(String name, Operation operation) {
    OneInputTransformation<T, Void> sink =
        new OneInputTransformation<>(
            transformation,
            name,
            operation,
            null,
            Transformation.DEFAULT_PARALLELISM,
            keyContext());
    environment.addSink(sink);
    return new DataStreamSink<>(sink);
  }

  /** The key context of this stream when it is keyed; null otherwise. */
  KeyContext<T, ?> keyContext() {
    return null;
  }

  <R> SingleOutputStreamOperator<R> transform(
      String name, Operation operation, TypeInformation<R> outputType) {
    OneInputTransformation<T, R> t =
        new OneInputTransformation<>(
            transformation,
            name,
            operation,
            outputType,
            Transformation.DEFAULT_PARALLELISM,
            keyContext());
    return new SingleOutputStreamOperator<>(environment, t);
  }
}
