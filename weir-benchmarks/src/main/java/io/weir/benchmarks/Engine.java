package io.weir.benchmarks;

import java.util.Locale;

/** An implementation that a workload runs on; {@link #id} is what a {@code RESULT} line names. */
public enum Engine {
  /** Weir itself, on its embedded local cluster. */
  WEIR("weir", "Weir"),
  /** Apache Flink 2.x on its local mini cluster, the engine Weir is measured against. */
  FLINK("flink", "Flink"),
  /** The same arithmetic in plain Java with no framework: the physical limit of the machine. */
  PLAIN("plain", "plain Java");

  private final String id;
  private final String displayName;

  Engine(String id, String displayName) {
    this.id = id;
    this.displayName = displayName;
  }

  public String id() {
    return id;
  }

  public String displayName() {
    return displayName;
  }

  /** Parses an engine id such as {@code weir}; the error lists the ids there are. */
  public static Engine fromId(String id) {
    for (Engine engine : values()) {
      if (engine.id.equals(id.toLowerCase(Locale.ROOT))) {
        return engine;
      }
    }
    throw new IllegalArgumentException(
        "Unknown engine '" + id + "'; use one of weir, flink, plain.");
  }
}
