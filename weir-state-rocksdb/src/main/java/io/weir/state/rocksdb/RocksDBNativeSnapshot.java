package io.weir.state.rocksdb;

import io.weir.api.config.CheckpointingOptions;
import io.weir.api.typeutils.TypeSerializer;
import io.weir.runtime.checkpoint.CheckpointOptions;
import io.weir.runtime.checkpoint.IncrementalKeyedStateHandle;
import io.weir.runtime.checkpoint.KeyedStateHandle;
import io.weir.runtime.checkpoint.StateSchema;
import io.weir.runtime.state.KeyedStateSnapshot;
import io.weir.runtime.storage.CheckpointStateWriter;
import io.weir.runtime.storage.StreamStateHandle;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import org.rocksdb.Checkpoint;
import org.rocksdb.RocksDBException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A native snapshot of the RocksDB backend, incremental or full. The synchronous part flushes the
 * memtables and takes a native RocksDB checkpoint: hard links to the immutable SST files plus
 * copies of the small MANIFEST, CURRENT and OPTIONS files, in milliseconds whatever the state's
 * size. The asynchronous part:
 *
 * <ul>
 *   <li>incremental: uploads the SST files the last completed checkpoint did not have into the
 *       storage's shared directory and refers to the others by name;
 *   <li>incremental, for a full checkpoint ({@link CheckpointOptions.Type#FULL_CHECKPOINT}, Flink's
 *       sharing strategy {@code FORWARD}): uploads every SST file into the shared directory anew,
 *       under a new lineage ({@link Uploaded#backendId}), so it refers to no file of an earlier
 *       checkpoint while later incremental checkpoints build on its files;
 *   <li>full (Flink 2.x's native full checkpoint): copies every SST file, in parallel, into the
 *       checkpoint's own files, so the checkpoint is self-contained and shares nothing;
 * </ul>
 *
 * and uploads the other files as the checkpoint's own. Either way the result is an {@link
 * IncrementalKeyedStateHandle}, which the RocksDB backend restores at any parallelism. With local
 * recovery the native checkpoint is taken into the subtask's local store and kept there after the
 * upload as the local copy ({@link RocksDBLocalCopy}).
 */
final class RocksDBNativeSnapshot implements KeyedStateSnapshot {

  /**
   * SST files an incremental snapshot uploaded to the shared directory: those of the last completed
   * checkpoint need not be uploaded again.
   *
   * @param backendId the lineage the files were uploaded in: with a file's local name, its key in
   *     the coordinator's shared-state registry. A full checkpoint starts a new lineage, so its
   *     fresh uploads of files an earlier checkpoint also has are registered apart from those
   * @param files by local name
   */
  record Uploaded(String backendId, Map<String, StreamStateHandle> files) {}

  private final RocksDBKeyedStateBackend<?> backend;
  private final Path checkpointDir;
  private final byte[] meta;
  private final StateSchema schema;
  private final Map<String, StreamStateHandle> base;

  /** The lineage of this snapshot's shared files ({@link Uploaded#backendId}). */
  private final String backendId;

  private final int transferThreads;
  private final boolean incremental;

  /** The native checkpoint is in the subtask's local store and stays there as its local copy. */
  private final boolean localCopy;

  private static final Logger LOG = LoggerFactory.getLogger(RocksDBNativeSnapshot.class);

  private RocksDBNativeSnapshot(
      RocksDBKeyedStateBackend<?> backend,
      Path checkpointDir,
      byte[] meta,
      StateSchema schema,
      boolean incremental,
      boolean reuseEarlierFiles,
      boolean localCopy) {
    this.backend = backend;
    this.localCopy = localCopy;
    this.schema = schema;
    this.checkpointDir = checkpointDir;
    this.meta = meta;
    this.incremental = incremental;
    synchronized (backend.pendingUploads) {
      Uploaded last = backend.uploadedBase;
      String lineage = last == null ? backend.backendId : last.backendId();
      if (!incremental) {
        this.base = Map.of();
        this.backendId = backend.backendId;
      } else if (reuseEarlierFiles && !newLineagePending(backend, lineage)) {
        this.base = last == null ? Map.of() : last.files();
        this.backendId = lineage;
      } else {
        this.base = Map.of();
        this.backendId = UUID.randomUUID().toString();
      }
    }
    this.transferThreads = backend.transferThreads;
  }

  /**
   * True when a snapshot this subtask has not yet heard the end of started a lineage other than
   * {@code lineage} (a full checkpoint): once that checkpoint completed, the registry may no longer
   * hold the files of {@code lineage}, so an incremental snapshot taken before this subtask heard
   * of it reuses nothing either and starts a lineage of its own.
   */
  private static boolean newLineagePending(RocksDBKeyedStateBackend<?> backend, String lineage) {
    for (Uploaded pending : backend.pendingUploads.values()) {
      if (!pending.backendId().equals(lineage)) {
        return true;
      }
    }
    return false;
  }

  /**
   * A snapshot; with {@code reuseEarlierFiles} false (a full checkpoint) an incremental one uploads
   * every SST file anew, in a new lineage.
   */
  static RocksDBNativeSnapshot take(
      RocksDBKeyedStateBackend<?> backend,
      long checkpointId,
      boolean incremental,
      boolean reuseEarlierFiles)
      throws IOException, RocksDBException {
    List<RocksDBFullSnapshot.ColumnView> columns = new ArrayList<>();
    backend.columns.values().forEach(c -> columns.add(RocksDBFullSnapshot.ColumnView.of(c)));
    TypeSerializer<?> keys = backend.keySerializer.duplicate();
    byte[] meta = RocksDBMeta.write(keys, columns);
    StateSchema schema = RocksDBFullSnapshot.schemaOf(keys, columns);
    // With local recovery the native checkpoint is taken straight into the subtask's local store
    // (hard links where it shares the file system), where it stays as the local copy.
    Path dir = null;
    if (backend.localState != null) {
      try {
        dir = backend.localState.newSnapshotDirectory(checkpointId, backend.operatorId);
      } catch (IOException e) {
        LOG.warn(
            "Checkpoint {} of '{}' keeps no local copy: {}; a restore of it will read the"
                + " checkpoint storage. Check {}",
            checkpointId,
            backend.operatorName,
            e.toString(),
            CheckpointingOptions.LOCAL_BACKUP_DIRECTORIES.key());
      }
    }
    boolean localCopy = dir != null;
    if (dir == null) {
      dir = backend.instanceDir.resolve("chk-" + checkpointId);
    }
    RocksDBKeyedStateBackend.deleteQuietly(dir);
    backend.flush();
    try (Checkpoint checkpoint = Checkpoint.create(backend.db)) {
      checkpoint.createCheckpoint(dir.toString());
    }
    return new RocksDBNativeSnapshot(
        backend, dir, meta, schema, incremental, reuseEarlierFiles, localCopy);
  }

  @Override
  public StateSchema schema() {
    return schema;
  }

  @Override
  public KeyedStateHandle persist(
      long checkpointId, CheckpointStateWriter storage, String description) throws IOException {
    boolean keepLocalCopy = false;
    try {
      List<String> names;
      try (Stream<Path> files = Files.list(checkpointDir)) {
        names = files.map(p -> p.getFileName().toString()).sorted().toList();
      }
      List<Callable<IncrementalKeyedStateHandle.SharedFile>> uploads = new ArrayList<>();
      List<Callable<IncrementalKeyedStateHandle.PrivateFile>> copies = new ArrayList<>();
      List<IncrementalKeyedStateHandle.SharedFile> shared = new ArrayList<>();
      for (String name : names) {
        Path file = checkpointDir.resolve(name);
        String what = name + " of keyed state of " + description;
        StreamStateHandle earlier = base.get(name);
        if (!name.endsWith(".sst")) {
          // MANIFEST, CURRENT, OPTIONS: small, so the storage may keep them inline.
          copies.add(
              () ->
                  new IncrementalKeyedStateHandle.PrivateFile(
                      name, storage.writeState(checkpointId, Files.readAllBytes(file), what)));
        } else if (!incremental) {
          copies.add(
              () ->
                  new IncrementalKeyedStateHandle.PrivateFile(
                      name, storage.writeFile(checkpointId, file, what)));
        } else if (earlier != null) {
          shared.add(new IncrementalKeyedStateHandle.SharedFile(name, earlier, true));
        } else {
          uploads.add(
              () ->
                  new IncrementalKeyedStateHandle.SharedFile(
                      name, storage.writeSharedFile(checkpointId, file, what), false));
        }
      }
      shared.addAll(FileTransfer.runAll(uploads, transferThreads, "upload of " + description));
      List<IncrementalKeyedStateHandle.PrivateFile> own =
          FileTransfer.runAll(copies, transferThreads, "copy of " + description);
      StreamStateHandle metaHandle =
          storage.writeState(checkpointId, meta, "state meta data of " + description);
      if (incremental) {
        Map<String, StreamStateHandle> files = new HashMap<>();
        shared.forEach(f -> files.put(f.localName(), f.handle()));
        synchronized (backend.pendingUploads) {
          backend.pendingUploads.put(checkpointId, new Uploaded(backendId, files));
        }
      }
      IncrementalKeyedStateHandle handle =
          new IncrementalKeyedStateHandle(
              backend.range, backendId, checkpointId, metaHandle, shared, own);
      keepLocalCopy = localCopy && RocksDBLocalCopy.complete(checkpointDir, meta, handle);
      return handle;
    } finally {
      if (!keepLocalCopy) {
        release();
      }
    }
  }

  @Override
  public void release() {
    RocksDBKeyedStateBackend.deleteQuietly(checkpointDir);
  }
}
