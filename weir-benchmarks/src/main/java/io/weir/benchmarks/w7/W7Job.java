package io.weir.benchmarks.w7;

import io.weir.benchmarks.Engine;
import io.weir.benchmarks.Result;
import io.weir.benchmarks.Stats;
import io.weir.benchmarks.Workload;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * What the W7 latency mains of both engines share: the configurations, the rates and durations, the
 * job's settings (the same keys on both engines), W1's key, and the {@code RESULT} line.
 *
 * <p>The job, the same on both engines: {@code fromSequence(1, Long.MAX_VALUE)} → a chained map
 * that paces each of the 2 source subtasks to {@value #RATE_PER_SUBTASK} records per second ({@link
 * PacingSchedule}) and emits {@code (key, creation stamp)} with W1's key → {@code keyBy} → W1's
 * {@code ValueState<Long>} count, emitting {@code (key, count, stamp)} → a sink that takes arrival
 * minus stamp into an HDR histogram ({@link LatencyMeasurement}); parallelism 2, checkpoints every
 * second into a fresh temporary directory, heap backend, aligned or unaligned. Everything else is
 * each engine's default, the network buffer timeout (100 ms on both) included. A run: submit,
 * {@link #warmUp()} not measured, then {@code records / RATE} seconds measured, wait until the
 * measured records have reached the sinks, cancel.
 */
public final class W7Job {
  public static final String ID = "W7";

  /**
   * Checkpoints every second, aligned; and unaligned (from the start, no aligned timeout). Without
   * a suffix the records come from each engine's own rate-limited generator ({@code
   * DataGeneratorSource} with {@code RateLimiterStrategy.perSecond}, as a user would write it), so
   * a source with nothing due is idle; with {@code -paced}, from a sequence source whose chained
   * map parks until each record is due ({@link PacingSchedule}): a source that never idles, as one
   * polling a busy external system. With {@code -5ms} both engines send a partly filled buffer
   * after at most 5 ms ({@code execution.buffer-timeout.interval}: Weir's default, against Flink's
   * 100 ms), so the two are compared at the same timeout as well as at their defaults.
   */
  public static final List<String> CONFIGS =
      List.of(
          "aligned",
          "unaligned",
          "aligned-paced",
          "unaligned-paced",
          "aligned-5ms",
          "unaligned-5ms",
          "aligned-paced-5ms",
          "unaligned-paced-5ms");

  /** The buffer timeout of the {@code -5ms} configurations: Weir's default. */
  static final Duration SAME_BUFFER_TIMEOUT = Duration.ofMillis(5);

  public static final int PARALLELISM = 2;

  /** Records per second each source subtask emits: 100 000 per second together. */
  public static final long RATE_PER_SUBTASK = 50_000L;

  public static final long RATE = RATE_PER_SUBTASK * PARALLELISM;

  /**
   * The first seconds of a run, left out of the histogram: JIT, first checkpoints, state growth.
   */
  public static final Duration WARM_UP = Duration.ofSeconds(10);

  /** The measured span of a run at the default record count. */
  public static final Duration MEASURED = Duration.ofSeconds(60);

  /** Records measured by default: {@link #MEASURED} at {@link #RATE}. */
  public static final long DEFAULT_RECORDS = MEASURED.toSeconds() * RATE;

  public static final Duration CHECKPOINT_INTERVAL = Duration.ofSeconds(1);

  /** How long the first record may take to come after submission. */
  static final Duration START_TIMEOUT = Duration.ofMinutes(2);

  /** How long after the window the measured records may take to reach the sinks. */
  static final Duration DRAIN_TIMEOUT = Duration.ofSeconds(30);

  /**
   * {@code -Dweir.bench.w7.warmup-seconds=2} shortens the warm-up for a smoke run (through the
   * runner: {@code --jvm-args}); measurements keep {@link #WARM_UP}.
   */
  static final String WARM_UP_PROPERTY = "weir.bench.w7.warmup-seconds";

  /**
   * {@code -Dweir.bench.w7.buffer-timeout-ms=10}, for a diagnosis by hand: the network buffer
   * timeout on both engines ({@code setBufferTimeout}; Weir's default is 5 ms, Flink's 100 ms; the
   * runner never sets it, the {@code -5ms} configurations set both to 5 ms), to see how much of the
   * latency is records waiting in a partly filled buffer.
   */
  static final String BUFFER_TIMEOUT_PROPERTY = "weir.bench.w7.buffer-timeout-ms";

  public static final Workload WORKLOAD =
      new Workload(
          ID,
          "latency",
          DEFAULT_RECORDS,
          CONFIGS,
          Map.of(Engine.WEIR, WeirLatency.class, Engine.FLINK, FlinkLatency.class),
          WARM_UP.plus(MEASURED),
          "W1's job fed by 2 source subtasks at "
              + RATE_PER_SUBTASK
              + " rec/s each (each engine's rate-limited DataGeneratorSource; -paced: a sequence"
              + " source whose chained map parks until each record is due), each record stamped"
              + " with System.nanoTime() when the source emits it;"
              + " the sinks take arrival - stamp into HDR histograms, merged; the first "
              + WARM_UP.toSeconds()
              + " s are left out; records = measured records that reached the sinks (--records"
              + " sets the measured span: records / "
              + RATE
              + " s); rec/s = those / measured seconds; p50Ms, p99Ms, p999Ms (99.9th), maxMs ="
              + " latency; missing = measured records that had not reached a sink 30 s after the"
              + " window; sourceLagMaxMs = the furthest behind its schedule a source emitted a"
              + " measured record (backpressure or pauses, which the stamps do not show);"
              + " checkpoints = completed in the run, cpP50Ms = their median end-to-end duration");

  private W7Job() {}

  /** W1's key: {@code ((i * 0x9E3779B97F4A7C15L) >>> 47) % 100_000}. */
  public static long key(long i) {
    return ((i * 0x9E3779B97F4A7C15L) >>> 47) % 100_000;
  }

  /** The warm-up of a run: {@link #WARM_UP} unless shortened by hand. */
  public static Duration warmUp() {
    String seconds = System.getProperty(WARM_UP_PROPERTY);
    return seconds == null ? WARM_UP : Duration.ofSeconds(Long.parseLong(seconds.strip()));
  }

  /** The network buffer timeout set by hand, if any ({@link #BUFFER_TIMEOUT_PROPERTY}). */
  public static Optional<Duration> bufferTimeout() {
    String millis = System.getProperty(BUFFER_TIMEOUT_PROPERTY);
    return millis == null
        ? Optional.empty()
        : Optional.of(Duration.ofMillis(Long.parseLong(millis.strip())));
  }

  /** The measured span for {@code records} measured records at {@link #RATE}. */
  public static Duration measured(long records) {
    return Duration.ofNanos(records * PacingSchedule.NANOS_PER_SECOND / RATE);
  }

  /**
   * The job's settings, the same keys on both engines: no restart, a checkpoint every second into
   * {@code checkpointDir}, the heap backend, unaligned checkpoints for {@code unaligned}.
   */
  public static Map<String, String> settings(String config, String checkpointDir) {
    if (!CONFIGS.contains(config)) {
      throw new IllegalArgumentException(
          "Unknown W7 configuration '" + config + "'; use " + String.join(" or ", CONFIGS) + ".");
    }
    Map<String, String> settings = new LinkedHashMap<>();
    settings.put("restart-strategy.type", "none");
    settings.put("state.backend.type", "hashmap");
    settings.put("execution.checkpointing.interval", CHECKPOINT_INTERVAL.toMillis() + "ms");
    settings.put("execution.checkpointing.dir", checkpointDir);
    settings.put(
        "execution.checkpointing.unaligned.enabled",
        Boolean.toString(config.startsWith("unaligned")));
    if (config.endsWith("-5ms")) {
      settings.put("execution.buffer-timeout.interval", SAME_BUFFER_TIMEOUT.toMillis() + "ms");
    }
    return settings;
  }

  /** True when {@code config} paces a sequence source with a map ({@code -paced}). */
  public static boolean paced(String config) {
    return config.contains("-paced");
  }

  /**
   * The creation stamp of a generated record, for a rate-limited generator (a source subtask's
   * {@code GeneratorFunction}): counts the subtask's records and reports how far behind the fixed
   * schedule from its first record each one goes out.
   */
  public static final class GeneratorStamp implements java.io.Serializable {
    private static final long serialVersionUID = 1L;
    private transient long first;
    private transient long generated;

    /** The stamp of the record generated now. */
    public long next() {
      LatencyMeasurement measurement = LatencyMeasurement.current();
      long now = System.nanoTime();
      if (generated == 0) {
        first = now;
      }
      long due = first + generated * PacingSchedule.NANOS_PER_SECOND / RATE_PER_SUBTASK;
      generated++;
      return measurement.stamp(Math.max(0, now - due));
    }
  }

  /**
   * The {@code RESULT}: the measured records over the measured span, then the latency figures.
   *
   * @param checkpointMillis the end-to-end durations of the checkpoints completed during the run
   */
  public static Result result(
      Engine engine,
      String config,
      LatencyMeasurement.Figures figures,
      List<Long> checkpointMillis) {
    long completedCheckpoints = checkpointMillis.size();
    double checkpointP50Millis =
        checkpointMillis.isEmpty()
            ? Double.NaN
            : Stats.median(checkpointMillis.stream().map(Long::doubleValue).toList());
    return Result.of(engine, ID, config, figures.recorded(), figures.measuredNanos())
        .with("p50Ms", ms(figures.percentileMs(50)))
        .with("p99Ms", ms(figures.percentileMs(99)))
        .with("p999Ms", ms(figures.percentileMs(99.9)))
        .with("maxMs", ms(figures.maxMs()))
        .with("missing", Long.toString(figures.missing()))
        .with("sourceLagMaxMs", ms(figures.maxLagNanos() / 1e6))
        .with("checkpoints", Long.toString(completedCheckpoints))
        .with("cpP50Ms", Double.isNaN(checkpointP50Millis) ? "n/a" : ms(checkpointP50Millis));
  }

  private static String ms(double millis) {
    return Double.isNaN(millis) ? "n/a" : String.format(Locale.ROOT, "%.2f", millis);
  }
}
