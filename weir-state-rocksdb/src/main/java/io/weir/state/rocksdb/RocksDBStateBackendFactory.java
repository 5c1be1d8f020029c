package io.weir.state.rocksdb;

import io.weir.api.config.CheckpointingOptions;
import io.weir.api.config.Configuration;
import io.weir.runtime.recovery.NonRecoverableException;
import io.weir.runtime.state.KeyedStateBackend;
import io.weir.runtime.state.KeyedStateBackendFactory;
import java.io.File;
import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.LongSupplier;

/** Builds {@link RocksDBKeyedStateBackend}s for {@code state.backend.type: rocksdb}. */
public final class RocksDBStateBackendFactory implements KeyedStateBackendFactory {

  @Override
  public String type() {
    return CheckpointingOptions.BACKEND_ROCKSDB;
  }

  @Override
  public <K> KeyedStateBackend<K> create(Context<K> context) throws Exception {
    Configuration conf = context.configuration();
    RocksDBNativeLibrary.ensureLoaded(conf);
    Path instanceDir = instanceDirectory(context);
    RocksDBResources.Slot slot =
        RocksDBResources.acquire(context.jobScope(), context.taskInfo().indexOfThisSubtask(), conf);
    RocksDBKeyedStateBackend<K> backend;
    try {
      backend =
          new RocksDBKeyedStateBackend<>(
              context.operatorName(),
              context.keySerializer(),
              context.maxParallelism(),
              context.keyGroupRange(),
              conf,
              instanceDir,
              slot,
              context.operatorId(),
              context.localState());
    } catch (RuntimeException e) {
      RocksDBResources.release(slot);
      RocksDBKeyedStateBackend.deleteQuietly(instanceDir);
      // An invalid setting fails every attempt alike: no restart can mend it.
      throw e instanceof IllegalArgumentException
          ? new NonRecoverableException(e.getMessage(), e)
          : e;
    }
    try {
      RocksDBRestore.restore(backend, context.restored(), context.userClassLoader());
      return backend;
    } catch (Exception | Error e) {
      backend.close();
      throw e;
    }
  }

  /**
   * The block caches of every slot of the process, summed (Flink's {@code
   * state.backend.rocksdb.metrics.block-cache-*}): with the memtables and the index and filter
   * blocks charged to them, what RocksDB holds natively, bounded by the capacity.
   */
  @Override
  public Map<String, LongSupplier> nativeMemoryGauges() {
    Map<String, LongSupplier> gauges = new LinkedHashMap<>();
    gauges.put("rocksdb.block-cache-usage", () -> RocksDBResources.sum(s -> s.cache.getUsage()));
    gauges.put(
        "rocksdb.block-cache-pinned-usage",
        () -> RocksDBResources.sum(s -> s.cache.getPinnedUsage()));
    gauges.put("rocksdb.block-cache-capacity", () -> RocksDBResources.sum(s -> s.capacity));
    return gauges;
  }

  /**
   * Before any task runs: every {@code state.backend.rocksdb.*} key parses and lies in its range,
   * and at least one local directory can be created and written.
   */
  @Override
  public void validate(Configuration configuration) {
    RocksDBOptions.validate(configuration);
    List<String> problems = new ArrayList<>();
    List<Path> dirs = localDirectories(configuration);
    for (Path dir : dirs) {
      try {
        Files.createDirectories(dir);
        if (!Files.isWritable(dir)) {
          problems.add(dir + " is not writable");
        }
      } catch (IOException | SecurityException e) {
        problems.add(dir + " cannot be created (" + e + ")");
      }
    }
    if (problems.size() == dirs.size()) {
      throw new NonRecoverableException(noLocalDirectory(configuration, "RocksDB state", problems));
    }
  }

  private static List<Path> localDirectories(Configuration configuration) {
    String configured = configuration.get(RocksDBOptions.LOCAL_DIRECTORIES);
    List<Path> dirs = new ArrayList<>();
    if (configured == null || configured.isBlank()) {
      dirs.add(Path.of(System.getProperty("java.io.tmpdir")));
    } else {
      for (String p : configured.split("[," + File.pathSeparator + "]")) {
        if (!p.isBlank()) {
          dirs.add(Path.of(p.trim()));
        }
      }
    }
    return dirs;
  }

  private static String noLocalDirectory(
      Configuration configuration, String what, List<String> problems) {
    return "The "
        + what
        + " has no local working directory: "
        + String.join("; ", problems)
        + ". Set "
        + RocksDBOptions.LOCAL_DIRECTORIES.key()
        + " to a writable directory"
        + (configuration.get(RocksDBOptions.LOCAL_DIRECTORIES) == null
            ? " (the default is java.io.tmpdir)"
            : "")
        + ".";
  }

  /**
   * A fresh working directory for one operator subtask, in one of the configured local directories
   * (chosen by subtask index, skipping ones that cannot be written).
   */
  static Path instanceDirectory(Context<?> context) {
    List<Path> dirs = localDirectories(context.configuration());
    String name =
        "weir-rocksdb-"
            + context.operatorId().replaceAll("[^A-Za-z0-9_.-]", "_")
            + "-"
            + context.taskInfo().indexOfThisSubtask()
            + "-"
            + UUID.randomUUID();
    List<String> problems = new ArrayList<>();
    int first = context.taskInfo().indexOfThisSubtask() % dirs.size();
    for (int i = 0; i < dirs.size(); i++) {
      Path dir = dirs.get((first + i) % dirs.size());
      try {
        Path instance = Files.createDirectories(dir).resolve(name);
        Files.createDirectory(instance);
        return instance;
      } catch (AccessDeniedException e) {
        problems.add(dir + " is not writable");
      } catch (IOException | SecurityException e) {
        problems.add(dir + ": " + e);
      }
    }
    throw new NonRecoverableException(
        noLocalDirectory(
            context.configuration(),
            "RocksDB state of operator '" + context.operatorName() + "'",
            problems));
  }
}
