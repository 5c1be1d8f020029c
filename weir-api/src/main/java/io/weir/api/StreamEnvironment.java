package io.weir.api;

import io.weir.api.config.Configuration;
import io.weir.api.config.CoreOptions;
import io.weir.api.eventtime.WatermarkStrategy;
import io.weir.api.graph.Pipeline;
import io.weir.api.graph.SourceTransformation;
import io.weir.api.graph.Transformation;
import io.weir.api.source.NumberSequenceSource;
import io.weir.api.source.Source;
import io.weir.api.typeutils.InvalidTypesException;
import io.weir.api.typeutils.ResultTypeQueryable;
import io.weir.api.typeutils.TypeInformation;
import io.weir.api.typeutils.Types;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.ServiceLoader;
import java.util.concurrent.ExecutionException;

/**
 * The entry point of a Weir job: creates streams, holds the job's settings, runs the job. The
 * counterpart of Flink's {@code StreamExecutionEnvironment}. Used from one thread.
 */
public class StreamEnvironment {

  private final Configuration configuration;
  private final List<Transformation<?>> sinks = new ArrayList<>();

  protected StreamEnvironment(Configuration configuration) {
    this.configuration = new Configuration(configuration);
  }

  /**
   * An environment that runs jobs in local execution (the in-process engine; on the cluster whose
   * JobManager runs this program), configured by system properties.
   */
  public static StreamEnvironment create() {
    return create(Configuration.fromSystemProperties());
  }

  /** An environment with the given settings ({@code -Dkey=value} properties still apply). */
  public static StreamEnvironment create(Configuration configuration) {
    Configuration merged = new Configuration(configuration);
    merged.addAll(Configuration.fromSystemProperties());
    return new StreamEnvironment(merged);
  }

  /** The environment's settings; changes apply to jobs executed afterwards. */
  public Configuration getConfiguration() {
    return configuration;
  }

  public StreamEnvironment setParallelism(int parallelism) {
    if (parallelism < 1) {
      throw new IllegalArgumentException(
          "The default parallelism must be at least 1, but was " + parallelism + ".");
    }
    configuration.set(CoreOptions.DEFAULT_PARALLELISM, parallelism);
    return this;
  }

  public int getParallelism() {
    return configuration.get(CoreOptions.DEFAULT_PARALLELISM);
  }

  /**
   * Runs every operator in a task of its own, as Flink's {@code disableOperatorChaining()}: writes
   * {@code pipeline.operator-chaining.enabled: false}.
   */
  public StreamEnvironment disableOperatorChaining() {
    configuration.set(CoreOptions.OPERATOR_CHAINING, false);
    return this;
  }

  /** Whether operators are chained into tasks; true unless disabled. */
  public boolean isChainingEnabled() {
    return configuration.get(CoreOptions.OPERATOR_CHAINING);
  }

  /**
   * Sets {@code execution.runtime-mode}, as Flink's {@code setRuntimeMode}. Weir runs jobs in
   * {@code STREAMING} mode only: {@code BATCH} is refused here (and when set in the configuration,
   * at submission); {@code AUTOMATIC} runs in {@code STREAMING} mode.
   */
  public StreamEnvironment setRuntimeMode(RuntimeExecutionMode executionMode) {
    java.util.Objects.requireNonNull(executionMode, "execution mode");
    checkRuntimeMode(executionMode);
    configuration.set(CoreOptions.RUNTIME_MODE, executionMode);
    return this;
  }

  /** Refuses {@code BATCH}, naming the setting; called here and where a job is submitted. */
  public static void checkRuntimeMode(RuntimeExecutionMode executionMode) {
    if (executionMode == RuntimeExecutionMode.BATCH) {
      throw new UnsupportedOperationException(
          "execution.runtime-mode: BATCH is not supported; Weir runs jobs in STREAMING mode only"
              + " (bounded inputs run as streams that end, and windows and timers fire at the end"
              + " of input). Remove setRuntimeMode(RuntimeExecutionMode.BATCH) or the"
              + " execution.runtime-mode setting.");
    }
  }

  /**
   * The lines of text a server sends on a TCP socket, split at {@code '\n'} (a {@code '\r'} before
   * it is dropped), as Flink's {@code socketTextStream}: for demos (run {@code nc -lk 9999}). One
   * subtask reads; the stream ends when the server closes the connection. Not replayable: after a
   * failure and restart, lines sent before are lost, as in Flink.
   */
  public DataStreamSource<String> socketTextStream(String hostname, int port) {
    return socketTextStream(hostname, port, "\n");
  }

  /** {@link #socketTextStream(String, int)} splitting the text at {@code delimiter}. */
  public DataStreamSource<String> socketTextStream(String hostname, int port, String delimiter) {
    return socketTextStream(hostname, port, delimiter, 0);
  }

  /**
   * {@link #socketTextStream(String, int, String)} that connects again, once a second, up to {@code
   * maxRetry} times when the connection is lost (-1: forever), as Flink's.
   */
  public DataStreamSource<String> socketTextStream(
      String hostname, int port, String delimiter, long maxRetry) {
    DataStreamSource<String> stream =
        fromSource(
            new SocketTextSource(hostname, port, delimiter, maxRetry),
            "Socket Stream",
            Types.STRING);
    stream.setParallelism(1);
    return stream;
  }

  /** The number of key groups, which bounds the parallelism of keyed operators. */
  public StreamEnvironment setMaxParallelism(int maxParallelism) {
    if (maxParallelism < 1 || maxParallelism > (1 << 15)) {
      throw new IllegalArgumentException(
          "The max parallelism must be between 1 and 32768, but was " + maxParallelism + ".");
    }
    configuration.set(CoreOptions.MAX_PARALLELISM, maxParallelism);
    return this;
  }

  public int getMaxParallelism() {
    return configuration.get(CoreOptions.MAX_PARALLELISM);
  }

  /**
   * How long a partly filled network buffer may wait (5 ms by default); 0 flushes after every
   * record.
   */
  public StreamEnvironment setBufferTimeout(Duration timeout) {
    if (timeout.isNegative()) {
      throw new IllegalArgumentException("The buffer timeout must not be negative: " + timeout);
    }
    configuration.set(CoreOptions.BUFFER_TIMEOUT, timeout);
    return this;
  }

  /**
   * Takes a checkpoint every {@code interval} (at least 10 ms), in the mode already configured
   * ({@code EXACTLY_ONCE} by default). Checkpointing is off until this is called or {@code
   * execution.checkpointing.interval} is set.
   */
  public StreamEnvironment enableCheckpointing(Duration interval) {
    getCheckpointConfig().setCheckpointInterval(interval);
    return this;
  }

  /** Takes a checkpoint every {@code interval} (at least 10 ms) in the given mode. */
  public StreamEnvironment enableCheckpointing(Duration interval, CheckpointingMode mode) {
    getCheckpointConfig().setCheckpointInterval(interval).setCheckpointingMode(mode);
    return this;
  }

  /** As Flink's {@code enableCheckpointing(long)}: a checkpoint every {@code intervalMillis} ms. */
  public StreamEnvironment enableCheckpointing(long intervalMillis) {
    return enableCheckpointing(Duration.ofMillis(intervalMillis));
  }

  /**
   * The execution settings as Flink's {@code getConfig()} shows them (the job's parameters above
   * all): a view whose setters write into this environment's settings.
   */
  public ExecutionConfig getConfig() {
    return new ExecutionConfig(this);
  }

  /** The checkpointing settings: a view whose setters write into this environment's settings. */
  public CheckpointConfig getCheckpointConfig() {
    return new CheckpointConfig(configuration);
  }

  /** Whether and when a failed job restarts; writes Flink's {@code restart-strategy.*} keys. */
  public StreamEnvironment setRestartStrategy(RestartStrategy restartStrategy) {
    java.util.Objects.requireNonNull(restartStrategy, "restart strategy").writeTo(configuration);
    return this;
  }

  /** Where the job keeps its working state; writes {@code state.backend.type}. */
  public StreamEnvironment setStateBackend(StateBackend stateBackend) {
    java.util.Objects.requireNonNull(stateBackend, "state backend").writeTo(configuration);
    return this;
  }

  /** The numbers {@code from..to}, inclusive, spread over the parallel subtasks. */
  public DataStreamSource<Long> fromSequence(long from, long to) {
    return fromSource(new NumberSequenceSource(from, to), "Sequence Source", Types.LONG);
  }

  /** The given elements, in order, from one subtask. */
  @SafeVarargs
  public final <T> DataStreamSource<T> fromElements(T... elements) {
    if (elements.length == 0) {
      throw new IllegalArgumentException("fromElements needs at least one element");
    }
    return fromCollection(List.of(elements));
  }

  /** The given elements, in order, from one subtask (Flink's name since 1.19). */
  @SafeVarargs
  public final <T> DataStreamSource<T> fromData(T... data) {
    if (data.length == 0) {
      throw new IllegalArgumentException("fromData needs at least one element");
    }
    return fromCollection(List.of(data));
  }

  /** The elements of a collection, in its iteration order, from one subtask (Flink's name). */
  public <T> DataStreamSource<T> fromData(Collection<T> data) {
    return fromCollection(data);
  }

  /** As {@link #fromData(Collection)}, of the type given: also for an empty collection. */
  public <T> DataStreamSource<T> fromData(Collection<T> data, TypeInformation<T> typeInfo) {
    return fromCollection(data, typeInfo);
  }

  /** The elements of a collection, in its iteration order, from one subtask. */
  public <T> DataStreamSource<T> fromCollection(Collection<T> elements) {
    if (elements.isEmpty()) {
      throw new IllegalArgumentException(
          "fromCollection needs at least one element to know the type; for an empty collection"
              + " use fromCollection(elements, typeInfo)");
    }
    return fromCollection(elements, elementType(elements));
  }

  public <T> DataStreamSource<T> fromCollection(
      Collection<T> elements, TypeInformation<T> typeInfo) {
    DataStreamSource<T> stream =
        fromSource(
            new CollectionSource<>(elements, requireType(typeInfo).createSerializer()),
            "Collection Source",
            typeInfo);
    stream.setParallelism(1);
    return stream;
  }

  @SuppressWarnings("unchecked")
  private static <T> TypeInformation<T> elementType(Collection<T> elements) {
    Class<?> common = null;
    for (T element : elements) {
      if (element == null) {
        throw new IllegalArgumentException(
            "fromElements/fromCollection: elements must not be null");
      }
      common = common == null ? element.getClass() : commonSuperclass(common, element.getClass());
    }
    return (TypeInformation<T>) TypeInformation.of(common);
  }

  private static Class<?> commonSuperclass(Class<?> a, Class<?> b) {
    Class<?> c = a;
    while (!c.isAssignableFrom(b)) {
      c = c.getSuperclass();
    }
    return c;
  }

  /**
   * A stream from a source; the type is the one the source names ({@link ResultTypeQueryable}, as a
   * {@code DataGeneratorSource} does), else it comes from the source's signature.
   */
  @SuppressWarnings("unchecked")
  public <T> DataStreamSource<T> fromSource(Source<T, ?> source, String sourceName) {
    TypeInformation<T> type =
        source instanceof ResultTypeQueryable<?> queryable
            ? (TypeInformation<T>) queryable.getProducedType()
            : io.weir.api.typeutils.TypeExtractor.getOutputType(
                source, Source.class, 0, sourceName);
    return fromSource(source, sourceName, type);
  }

  public <T> DataStreamSource<T> fromSource(
      Source<T, ?> source, String sourceName, TypeInformation<T> typeInfo) {
    SourceTransformation<T> t =
        new SourceTransformation<>(
            sourceName, source, typeInfo, Transformation.DEFAULT_PARALLELISM);
    return new DataStreamSource<>(this, t);
  }

  /**
   * A stream from a source with event time: {@code watermarkStrategy} assigns the timestamps and
   * generates watermarks per source split, combined per subtask (the minimum over its active
   * splits), as Flink's {@code fromSource(source, watermarkStrategy, sourceName)}.
   */
  public <T> DataStreamSource<T> fromSource(
      Source<T, ?> source, WatermarkStrategy<T> watermarkStrategy, String sourceName) {
    java.util.Objects.requireNonNull(watermarkStrategy, "watermark strategy");
    DataStreamSource<T> stream = fromSource(source, sourceName);
    ((SourceTransformation<T>) stream.getTransformation()).setWatermarkStrategy(watermarkStrategy);
    return stream;
  }

  /** {@link #fromSource(Source, WatermarkStrategy, String)} with the type given explicitly. */
  public <T> DataStreamSource<T> fromSource(
      Source<T, ?> source,
      WatermarkStrategy<T> watermarkStrategy,
      String sourceName,
      TypeInformation<T> typeInfo) {
    java.util.Objects.requireNonNull(watermarkStrategy, "watermark strategy");
    DataStreamSource<T> stream = fromSource(source, sourceName, typeInfo);
    ((SourceTransformation<T>) stream.getTransformation()).setWatermarkStrategy(watermarkStrategy);
    return stream;
  }

  void addSink(Transformation<?> sink) {
    sinks.add(sink);
  }

  /** The name of a job executed without one and without {@code pipeline.name}, as Flink's. */
  public static final String DEFAULT_JOB_NAME = "Weir Streaming Job";

  /**
   * Runs the job, named by {@code pipeline.name} or {@value #DEFAULT_JOB_NAME}, and waits until it
   * ends.
   */
  public JobExecutionResult execute() throws Exception {
    return execute(defaultJobName());
  }

  /** Starts the job, named as {@link #execute()} names it, and returns at once. */
  public JobClient executeAsync() throws Exception {
    return executeAsync(defaultJobName());
  }

  String defaultJobName() {
    return configuration.getOptional(CoreOptions.PIPELINE_NAME).orElse(DEFAULT_JOB_NAME);
  }

  /** Runs the job and waits until it ends. The plan is cleared, as in Flink. */
  public JobExecutionResult execute(String jobName) throws Exception {
    JobClient client = executeAsync(jobName);
    try {
      return client.getJobExecutionResult().get();
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof Exception ex) {
        throw ex;
      }
      throw e;
    } catch (InterruptedException e) {
      client.cancel();
      Thread.currentThread().interrupt();
      throw e;
    }
  }

  /** Starts the job and returns at once with a handle on it. */
  public JobClient executeAsync(String jobName) throws Exception {
    if (sinks.isEmpty()) {
      throw new IllegalStateException(
          "No sinks defined in job '"
              + jobName
              + "': add one with sinkTo(...), addSink(...) or print() before execute");
    }
    Pipeline pipeline = new Pipeline(jobName, sinks, configuration);
    sinks.clear();
    return executor().execute(pipeline);
  }

  private static PipelineExecutor executor() {
    return ServiceLoader.load(PipelineExecutor.Factory.class).stream()
        .map(ServiceLoader.Provider::get)
        .max(Comparator.comparingInt(PipelineExecutor.Factory::priority))
        .orElseThrow(
            () ->
                new IllegalStateException(
                    "No Weir runtime found on the classpath: add the io.weir:weir-runtime"
                        + " dependency to run jobs"))
        .create();
  }

  /** Checks a type before it is needed, reporting a missing one with its explanation. */
  static <T> TypeInformation<T> requireType(TypeInformation<T> type) {
    if (type.isMissing()) {
      type.createSerializer(); // throws the stored InvalidTypesException
      throw new InvalidTypesException("Missing type information");
    }
    return type;
  }
}
