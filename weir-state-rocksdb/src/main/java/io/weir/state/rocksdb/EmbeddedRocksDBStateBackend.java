package io.weir.state.rocksdb;

import io.weir.api.StateBackend;
import io.weir.api.config.CheckpointingOptions;
import io.weir.api.config.Configuration;

/**
 * Keeps keyed state serialized in an embedded RocksDB per operator subtask, on local disk, so that
 * state can be far larger than memory. Checkpoints are either full (a consistent RocksDB snapshot
 * written in Weir's canonical key-group format) or incremental (a native RocksDB checkpoint of
 * which only the SST files that no earlier checkpoint uploaded are uploaded). Operator state stays
 * on the heap. The counterpart of Flink's {@code EmbeddedRocksDBStateBackend}; choose it with
 * {@code env.setStateBackend(new EmbeddedRocksDBStateBackend(true))} or {@code state.backend.type:
 * rocksdb}. Its options are the {@code state.backend.rocksdb.*} keys of {@link RocksDBOptions}.
 */
public final class EmbeddedRocksDBStateBackend implements StateBackend {

  private final Boolean incremental;
  private String localDirectories;

  /** Incremental checkpoints as {@code execution.checkpointing.incremental} says (default off). */
  public EmbeddedRocksDBStateBackend() {
    this.incremental = null;
  }

  /** Incremental checkpoints on or off, whatever the configuration says. */
  public EmbeddedRocksDBStateBackend(boolean incremental) {
    this.incremental = incremental;
  }

  /**
   * Where RocksDB keeps its working files ({@code state.backend.rocksdb.localdir}); several
   * directories spread subtasks over disks.
   */
  public EmbeddedRocksDBStateBackend setDbStoragePaths(String... paths) {
    this.localDirectories = String.join(",", paths);
    return this;
  }

  @Override
  public String type() {
    return CheckpointingOptions.BACKEND_ROCKSDB;
  }

  @Override
  public void writeTo(Configuration configuration) {
    StateBackend.super.writeTo(configuration);
    if (incremental != null) {
      configuration.set(CheckpointingOptions.INCREMENTAL_CHECKPOINTS, incremental);
    }
    if (localDirectories != null) {
      configuration.set(RocksDBOptions.LOCAL_DIRECTORIES, localDirectories);
    }
  }

  @Override
  public String toString() {
    return "EmbeddedRocksDBStateBackend{incremental="
        + (incremental == null ? "from configuration" : incremental)
        + "}";
  }
}
