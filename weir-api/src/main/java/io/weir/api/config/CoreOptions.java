package io.weir.api.config;

import java.time.Duration;
import java.util.Map;

/** The options of the engine foundation: parallelism, max parallelism, buffers. */
public final class CoreOptions {

  private CoreOptions() {}

  /** The job's name when {@code execute()} is given none (Flink's key). */
  public static final ConfigOption<String> PIPELINE_NAME =
      ConfigOptions.key("pipeline.name")
          .stringType()
          .noDefaultValue()
          .withDescription(
              "The job's name when execute() or executeAsync() is called without one; unset:"
                  + " 'Weir Streaming Job'.");

  public static final ConfigOption<Integer> DEFAULT_PARALLELISM =
      ConfigOptions.key("parallelism.default")
          .intType()
          .defaultValue(1)
          .withDescription(
              "Parallelism of operators that do not set their own. When it is not set, a job run"
                  + " in the program's own JVM (local execution: started with java, from an IDE,"
                  + " in a test) runs at the number of processors, as Flink's local environment"
                  + " does; weir run and a cluster use this default, 1.");

  public static final ConfigOption<Integer> MAX_PARALLELISM =
      ConfigOptions.key("pipeline.max-parallelism")
          .intType()
          .defaultValue(128)
          .withDescription(
              "Number of key groups: the upper bound of any keyed operator's parallelism.");

  public static final ConfigOption<Boolean> OBJECT_REUSE =
      ConfigOptions.key("pipeline.object-reuse")
          .booleanType()
          .defaultValue(false)
          .withDescription("Hand records between chained operators without copying mutable types.");

  public static final ConfigOption<Duration> BUFFER_TIMEOUT =
      ConfigOptions.key("execution.buffer-timeout.interval")
          .durationType()
          .defaultValue(Duration.ofMillis(5))
          .withDeprecatedKeys("execution.buffer-timeout")
          .withDescription(
              "Longest time a partly filled network buffer waits before it is sent to a"
                  + " consumer that has taken every buffer of its channel sent before; 0 sends"
                  + " after every record. Only buffers that have waited are sent, so a buffer"
                  + " that fills sooner goes out full, a consumer busy with older records gets"
                  + " no cut buffers, and a short timeout costs a busy job nothing (Flink's"
                  + " default is 100 ms and flushes every buffer at each tick).");

  public static final ConfigOption<Boolean> BUFFER_TIMEOUT_ENABLED =
      ConfigOptions.key("execution.buffer-timeout.enabled")
          .booleanType()
          .defaultValue(true)
          .withDescription(
              "False: a partly filled network buffer is never sent for its age, only when it is"
                  + " full, when an event (a checkpoint barrier, the end of the input) goes out"
                  + " and, with execution.buffer-flush-on-idle, when the task runs out of input;"
                  + " execution.buffer-timeout.interval is then not used. As Flink's key.");

  public static final ConfigOption<Boolean> BUFFER_FLUSH_ON_IDLE =
      ConfigOptions.key("execution.buffer-flush-on-idle")
          .booleanType()
          .defaultValue(true)
          .withDescription(
              "Send partly filled network buffers as soon as a task has no input left to"
                  + " process, instead of waiting for execution.buffer-timeout.interval: a busy task still"
                  + " fills whole buffers, an idle one adds no latency.");

  public static final ConfigOption<MemorySize> NETWORK_BUFFER_SIZE =
      ConfigOptions.key("taskmanager.memory.segment-size")
          .memoryType()
          .defaultValue(new MemorySize(32 * 1024))
          .withDescription("Size of one network buffer.");

  public static final ConfigOption<Integer> BUFFERS_PER_CHANNEL =
      ConfigOptions.key("taskmanager.network.memory.buffers-per-channel")
          .intType()
          .defaultValue(4)
          .withDescription(
              "Credits of one channel: buffers that may be in flight to one consumer before the"
                  + " producer waits. A channel starts with these and never has fewer; a fast one"
                  + " gets more, up to taskmanager.network.memory.max-buffers-per-channel.");

  public static final ConfigOption<Integer> MAX_BUFFERS_PER_CHANNEL =
      ConfigOptions.key("taskmanager.network.memory.max-buffers-per-channel")
          .intType()
          .defaultValue(16)
          .withDescription(
              "Most credits of one channel. A consumer grants a channel as many credits as it"
                  + " takes buffers of that channel in taskmanager.network.memory.in-flight-target"
                  + " (at least buffers-per-channel, at most this), so a fast channel rides out"
                  + " its consumer's or producer's short stalls while a slow or back-pressured one"
                  + " keeps buffers-per-channel and aligned barriers wait behind as little data as"
                  + " before. Equal to buffers-per-channel: every channel keeps that many.");

  public static final ConfigOption<Duration> IN_FLIGHT_TARGET =
      ConfigOptions.key("taskmanager.network.memory.in-flight-target")
          .durationType()
          .defaultValue(Duration.ofMillis(20))
          .withDescription(
              "How long a channel's consumer should take, at the rate it took that channel's"
                  + " buffers in the last 100 ms, to take the buffers in flight to it: what sets"
                  + " a channel's credits between buffers-per-channel and"
                  + " max-buffers-per-channel. (Flink's buffer debloating sizes a gate's"
                  + " in-flight data to a time too, 1 s by default, by shrinking buffers.)");

  public static final ConfigOption<Map<String, String>> GLOBAL_JOB_PARAMETERS =
      ConfigOptions.key("pipeline.global-job-parameters")
          .mapType()
          .defaultValue(Map.of())
          .withDescription(
              "The job's parameters, which every function reads with"
                  + " getRuntimeContext().getGlobalJobParameters(): key1:value1,key2:value2 (a key"
                  + " or value holding ',' or ':' in single quotes). Set by"
                  + " env.getConfig().setGlobalJobParameters(...).");

  public static final ConfigOption<Duration> AUTO_WATERMARK_INTERVAL =
      ConfigOptions.key("pipeline.auto-watermark-interval")
          .durationType()
          .defaultValue(Duration.ofMillis(200))
          .withDescription(
              "How often watermark generators emit periodic watermarks (sources with a"
                  + " WatermarkStrategy, assignTimestampsAndWatermarks); 0 disables periodic"
                  + " watermarks.");

  /** Whether operators are chained into tasks (Flink's key); false runs every operator alone. */
  public static final ConfigOption<Boolean> AUTO_GENERATE_UIDS =
      ConfigOptions.key("pipeline.auto-generate-uids")
          .booleanType()
          .defaultValue(true)
          .withDescription(
              "Give an operator without a uid one from its place in the job; false refuses a job"
                  + " with such an operator, naming it, since a savepoint's state finds its"
                  + " operator by uid (set them with .uid(...)), as in Flink.");

  public static final ConfigOption<Boolean> OPERATOR_CHAINING =
      ConfigOptions.key("pipeline.operator-chaining.enabled")
          .booleanType()
          .defaultValue(true)
          .withDescription(
              "Chain operators connected by forward edges of equal parallelism into one task;"
                  + " false runs every operator in a task of its own"
                  + " (env.disableOperatorChaining()).");

  /** Flink's runtime mode; Weir runs STREAMING only and refuses BATCH. */
  public static final ConfigOption<io.weir.api.RuntimeExecutionMode> RUNTIME_MODE =
      ConfigOptions.key("execution.runtime-mode")
          .enumType(io.weir.api.RuntimeExecutionMode.class)
          .defaultValue(io.weir.api.RuntimeExecutionMode.STREAMING)
          .withDescription(
              "STREAMING, the only mode Weir runs; BATCH (Flink's staged execution of bounded"
                  + " jobs) is refused when the job is submitted; AUTOMATIC runs in STREAMING"
                  + " mode.");

  /**
   * The buffer timeout of a job's tasks: {@link #BUFFER_TIMEOUT}, or null when {@link
   * #BUFFER_TIMEOUT_ENABLED} is false (buffers are never sent for their age).
   */
  public static Duration bufferTimeout(Configuration conf) {
    return conf.get(BUFFER_TIMEOUT_ENABLED) ? conf.get(BUFFER_TIMEOUT) : null;
  }
}
