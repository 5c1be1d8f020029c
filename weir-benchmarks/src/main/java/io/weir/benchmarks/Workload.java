package io.weir.benchmarks;

import java.time.Duration;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A benchmark workload from {@code WORKLOADS.md}: the main class that runs it once on each engine,
 * the configurations those mains accept, and the default record count.
 *
 * <p>Every main takes {@code <config> <records>} (see {@link JobArgs}) and prints one {@link
 * Result} line. The {@link Engine#PLAIN} main, where a workload has one, is the framework-free
 * limit; it is run with the workload's first configuration only.
 *
 * @param id the short id, such as {@code W1}
 * @param name the workload's name, such as {@code keyed-count}
 * @param defaultRecords records per run unless the runner is told otherwise
 * @param configs configuration ids the engine mains accept, such as {@code off} and {@code cp1s}
 * @param mains the main class per engine
 * @param runFor {@link Duration#ZERO} for a bounded job, timed from submission to its end; else the
 *     wall time a job runs before it is cancelled (then the {@code records} a main prints are those
 *     that reached the sink, {@code defaultRecords} is the source's upper bound, and no warm-up is
 *     run: a run that long carries its own)
 * @param notes what the extra {@code key=value} fields of its {@code RESULT} lines mean, for the
 *     report; empty when it prints none
 * @param comparedWith the id of the workload whose run in the same configuration this one's job
 *     time is set against in the report (W5: W3, the same job without the failure); empty for none
 */
public record Workload(
    String id,
    String name,
    long defaultRecords,
    List<String> configs,
    Map<Engine, Class<?>> mains,
    Duration runFor,
    String notes,
    String comparedWith) {

  public Workload {
    configs = List.copyOf(configs);
    mains = Collections.unmodifiableMap(new EnumMap<>(mains));
    if (runFor.isNegative()) {
      throw new IllegalArgumentException("runFor must not be negative: " + runFor);
    }
  }

  /** A bounded workload, timed from submission to the job's end, with no extra fields. */
  public Workload(
      String id,
      String name,
      long defaultRecords,
      List<String> configs,
      Map<Engine, Class<?>> mains) {
    this(id, name, defaultRecords, configs, mains, Duration.ZERO, "", "");
  }

  /** A workload compared with no other. */
  public Workload(
      String id,
      String name,
      long defaultRecords,
      List<String> configs,
      Map<Engine, Class<?>> mains,
      Duration runFor,
      String notes) {
    this(id, name, defaultRecords, configs, mains, runFor, notes, "");
  }

  /** Whether its jobs run for {@link #runFor} and are then cancelled. */
  public boolean timed() {
    return !runFor.isZero();
  }

  /** The main class for {@code engine}, if this workload runs on it. */
  public Optional<Class<?>> main(Engine engine) {
    return Optional.ofNullable(mains.get(engine));
  }

  /** {@code W1 keyed-count}: for table rows. */
  public String title() {
    return id + " " + name;
  }
}
