package io.weir.benchmarks;

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
 */
public record Workload(
    String id,
    String name,
    long defaultRecords,
    List<String> configs,
    Map<Engine, Class<?>> mains) {

  public Workload {
    configs = List.copyOf(configs);
    mains = Collections.unmodifiableMap(new EnumMap<>(mains));
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
