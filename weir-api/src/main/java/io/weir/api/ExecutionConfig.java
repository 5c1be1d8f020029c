package io.weir.api;

import io.weir.api.config.Configuration;
import io.weir.api.config.CoreOptions;
import io.weir.api.util.ParameterTool;
import java.io.Serializable;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;

/**
 * The job's execution settings as Flink's {@code env.getConfig()} shows them: a view whose setters
 * write the keys of the environment's settings ({@code pipeline.*}), as {@link CheckpointConfig}
 * does for checkpointing. Most often used for the job's parameters, which every function then reads
 * with {@code getRuntimeContext().getGlobalJobParameters()}:
 *
 * <pre>{@code
 * ParameterTool params = ParameterTool.fromArgs(args);
 * env.getConfig().setGlobalJobParameters(params);
 * }</pre>
 */
public final class ExecutionConfig {

  private final StreamEnvironment env;
  private final Configuration configuration;

  ExecutionConfig(StreamEnvironment env) {
    this.env = env;
    this.configuration = env.getConfiguration();
  }

  /**
   * What a job's parameters are, as Flink's: any class whose {@link #toMap()} gives them, such as
   * {@link ParameterTool} or a job's own command-line class.
   */
  public static class GlobalJobParameters implements Serializable {
    private static final long serialVersionUID = 1L;

    /** The parameters as keys and values; none here. */
    public Map<String, String> toMap() {
      return Map.of();
    }
  }

  /**
   * The job's parameters ({@code pipeline.global-job-parameters}), as {@code parameters.toMap()}
   * gives them when this is called; they replace any set before.
   */
  public ExecutionConfig setGlobalJobParameters(GlobalJobParameters parameters) {
    return setGlobalJobParameters(Objects.requireNonNull(parameters, "parameters").toMap());
  }

  /** The job's parameters, as Flink 2's map. */
  public ExecutionConfig setGlobalJobParameters(Map<String, String> parameters) {
    configuration.set(
        CoreOptions.GLOBAL_JOB_PARAMETERS, Map.copyOf(Objects.requireNonNull(parameters)));
    return this;
  }

  /**
   * The job's parameters, as a {@link ParameterTool} (Flink's code casts {@code
   * GlobalJobParameters} to one); {@code toMap()} gives the map.
   */
  public ParameterTool getGlobalJobParameters() {
    return ParameterTool.fromMap(configuration.get(CoreOptions.GLOBAL_JOB_PARAMETERS));
  }

  /** How often periodic watermarks are emitted ({@code pipeline.auto-watermark-interval}). */
  public ExecutionConfig setAutoWatermarkInterval(Duration interval) {
    if (Objects.requireNonNull(interval, "interval").isNegative()) {
      throw new IllegalArgumentException(
          "The auto watermark interval must not be negative: " + interval);
    }
    configuration.set(CoreOptions.AUTO_WATERMARK_INTERVAL, interval);
    return this;
  }

  /** As Flink's {@code setAutoWatermarkInterval(long)}: in milliseconds. */
  public ExecutionConfig setAutoWatermarkInterval(long intervalMillis) {
    return setAutoWatermarkInterval(Duration.ofMillis(intervalMillis));
  }

  /** In milliseconds, as Flink's. */
  public long getAutoWatermarkInterval() {
    return configuration.get(CoreOptions.AUTO_WATERMARK_INTERVAL).toMillis();
  }

  /**
   * Hands records between chained operators without copying them ({@code pipeline.object-reuse}).
   */
  public ExecutionConfig enableObjectReuse() {
    configuration.set(CoreOptions.OBJECT_REUSE, true);
    return this;
  }

  public ExecutionConfig disableObjectReuse() {
    configuration.set(CoreOptions.OBJECT_REUSE, false);
    return this;
  }

  public boolean isObjectReuseEnabled() {
    return configuration.get(CoreOptions.OBJECT_REUSE);
  }

  /** The default parallelism ({@code parallelism.default}), as {@link StreamEnvironment}'s. */
  public ExecutionConfig setParallelism(int parallelism) {
    env.setParallelism(parallelism);
    return this;
  }

  public int getParallelism() {
    return env.getParallelism();
  }

  /** The number of key groups ({@code pipeline.max-parallelism}). */
  public ExecutionConfig setMaxParallelism(int maxParallelism) {
    env.setMaxParallelism(maxParallelism);
    return this;
  }

  public int getMaxParallelism() {
    return env.getMaxParallelism();
  }
}
