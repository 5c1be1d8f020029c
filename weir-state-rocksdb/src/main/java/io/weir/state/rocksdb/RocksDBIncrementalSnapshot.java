package io.weir.state.rocksdb;

import io.weir.runtime.checkpoint.IncrementalKeyedStateHandle;
import io.weir.runtime.checkpoint.KeyedStateHandle;
import io.weir.runtime.state.KeyedStateSnapshot;
import io.weir.runtime.storage.CheckpointStorage;
import io.weir.runtime.storage.StreamStateHandle;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import org.rocksdb.Checkpoint;
import org.rocksdb.RocksDBException;

/**
 * An incremental snapshot of the RocksDB backend. The synchronous part flushes the memtables and
 * takes a native RocksDB checkpoint: hard links to the immutable SST files plus copies of the small
 * MANIFEST, CURRENT and OPTIONS files, in milliseconds whatever the state's size. The asynchronous
 * part uploads the SST files the last completed checkpoint did not have into the storage's shared
 * directory, refers to the others by name, and uploads the rest as this checkpoint's own files.
 */
final class RocksDBIncrementalSnapshot implements KeyedStateSnapshot {

  private final RocksDBKeyedStateBackend<?> backend;
  private final Path checkpointDir;
  private final byte[] meta;
  private final Map<String, StreamStateHandle> base;
  private final String backendId;
  private final int transferThreads;

  private RocksDBIncrementalSnapshot(
      RocksDBKeyedStateBackend<?> backend, Path checkpointDir, byte[] meta) {
    this.backend = backend;
    this.checkpointDir = checkpointDir;
    this.meta = meta;
    synchronized (backend.pendingUploads) {
      this.base = backend.uploadedBase;
    }
    this.backendId = backend.backendId;
    this.transferThreads = backend.transferThreads;
  }

  static RocksDBIncrementalSnapshot take(RocksDBKeyedStateBackend<?> backend, long checkpointId)
      throws IOException, RocksDBException {
    List<RocksDBFullSnapshot.ColumnView> columns = new ArrayList<>();
    backend.columns.values().forEach(c -> columns.add(RocksDBFullSnapshot.ColumnView.of(c)));
    byte[] meta = RocksDBMeta.write(backend.keySerializer.duplicate(), columns);
    Path dir = backend.instanceDir.resolve("chk-" + checkpointId);
    RocksDBKeyedStateBackend.deleteQuietly(dir);
    backend.flush();
    try (Checkpoint checkpoint = Checkpoint.create(backend.db)) {
      checkpoint.createCheckpoint(dir.toString());
    }
    return new RocksDBIncrementalSnapshot(backend, dir, meta);
  }

  @Override
  public KeyedStateHandle persist(long checkpointId, CheckpointStorage storage, String description)
      throws IOException {
    try {
      List<String> names;
      try (Stream<Path> files = Files.list(checkpointDir)) {
        names = files.map(p -> p.getFileName().toString()).sorted().toList();
      }
      List<Callable<IncrementalKeyedStateHandle.SharedFile>> uploads = new ArrayList<>();
      List<IncrementalKeyedStateHandle.SharedFile> shared = new ArrayList<>();
      List<IncrementalKeyedStateHandle.PrivateFile> own = new ArrayList<>();
      for (String name : names) {
        Path file = checkpointDir.resolve(name);
        if (name.endsWith(".sst")) {
          StreamStateHandle earlier = base.get(name);
          if (earlier != null) {
            shared.add(new IncrementalKeyedStateHandle.SharedFile(name, earlier, true));
          } else {
            uploads.add(
                () ->
                    new IncrementalKeyedStateHandle.SharedFile(
                        name,
                        storage.writeSharedFile(
                            checkpointId, file, name + " of keyed state of " + description),
                        false));
          }
        } else {
          own.add(
              new IncrementalKeyedStateHandle.PrivateFile(
                  name,
                  storage.writeState(
                      checkpointId,
                      Files.readAllBytes(file),
                      name + " of keyed state of " + description)));
        }
      }
      shared.addAll(FileTransfer.runAll(uploads, transferThreads, "upload of " + description));
      StreamStateHandle metaHandle =
          storage.writeState(checkpointId, meta, "state meta data of " + description);
      Map<String, StreamStateHandle> files = new HashMap<>();
      shared.forEach(f -> files.put(f.localName(), f.handle()));
      synchronized (backend.pendingUploads) {
        backend.pendingUploads.put(checkpointId, files);
      }
      return new IncrementalKeyedStateHandle(
          backend.range, backendId, checkpointId, metaHandle, shared, own);
    } finally {
      release();
    }
  }

  @Override
  public void release() {
    RocksDBKeyedStateBackend.deleteQuietly(checkpointDir);
  }
}
