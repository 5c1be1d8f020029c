package io.weir.benchmarks;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The state backend a configuration of W2, W3 or W5 runs on, written as Flink 2.x's configuration
 * keys ({@code state.backend.type}, {@code execution.checkpointing.incremental}), which Weir reads
 * as well. {@link #id} is the configuration's name on the command line.
 */
public enum StateBackendSetting {
  /** Objects on the heap; snapshots are always full. */
  HEAP("heap", "hashmap", false),
  /** Embedded RocksDB; a checkpoint uploads only the SST files the previous one lacks. */
  ROCKSDB_INCREMENTAL("rocksdb-incremental", "rocksdb", true),
  /** Embedded RocksDB; every checkpoint writes the whole state. */
  ROCKSDB_FULL("rocksdb-full", "rocksdb", false),
  /**
   * As {@link #ROCKSDB_INCREMENTAL}, with task-local recovery ({@code
   * execution.state-recovery.from-local}): a restart in the same process restores from the local
   * copy of the last snapshot. W5 only.
   */
  ROCKSDB_INCREMENTAL_LOCAL("rocksdb-incremental-local", "rocksdb", true, true);

  /** Weir's RocksDB backend, from the module {@code weir-state-rocksdb}. */
  static final String WEIR_ROCKSDB_CLASS = "io.weir.state.rocksdb.EmbeddedRocksDBStateBackend";

  private final String id;
  private final String type;
  private final boolean incremental;
  private final boolean localRecovery;

  StateBackendSetting(String id, String type, boolean incremental) {
    this(id, type, incremental, false);
  }

  StateBackendSetting(String id, String type, boolean incremental, boolean localRecovery) {
    this.id = id;
    this.type = type;
    this.incremental = incremental;
    this.localRecovery = localRecovery;
  }

  public String id() {
    return id;
  }

  public boolean isRocksDb() {
    return type.equals("rocksdb");
  }

  /** The setting with configuration name {@code id}; the error lists the names there are. */
  public static StateBackendSetting ofId(String id) {
    for (StateBackendSetting setting : values()) {
      if (setting.id.equals(id.toLowerCase(Locale.ROOT))) {
        return setting;
      }
    }
    throw new IllegalArgumentException(
        "Unknown state backend configuration '"
            + id
            + "'; use heap, rocksdb-incremental, rocksdb-full or rocksdb-incremental-local.");
  }

  /** The settings for a Flink job. */
  public Map<String, String> flinkSettings() {
    Map<String, String> settings = new LinkedHashMap<>();
    settings.put("state.backend.type", type);
    settings.put("execution.checkpointing.incremental", Boolean.toString(incremental));
    if (localRecovery) {
      settings.put("execution.state-recovery.from-local", "true");
    }
    return settings;
  }

  /**
   * The settings for a Weir job. For RocksDB it first checks that Weir's RocksDB backend is on the
   * class path: until it is, Weir's runtime would build its heap backend whatever the key says, and
   * the run would measure the wrong thing.
   *
   * @throws IllegalStateException for RocksDB when {@value #WEIR_ROCKSDB_CLASS} is missing
   */
  public Map<String, String> weirSettings() {
    if (isRocksDb()) {
      try {
        Class.forName(WEIR_ROCKSDB_CLASS, false, StateBackendSetting.class.getClassLoader());
      } catch (ClassNotFoundException e) {
        throw new IllegalStateException(
            "Weir's RocksDB state backend ("
                + WEIR_ROCKSDB_CLASS
                + ", module weir-state-rocksdb) is not on the class path, so the '"
                + id
                + "' configuration cannot run on Weir. Enable the weir-state-rocksdb dependency"
                + " in weir-benchmarks/pom.xml (the TODO there) and rebuild, or run this"
                + " configuration with --engines flink.",
            e);
      }
    }
    return flinkSettings();
  }
}
