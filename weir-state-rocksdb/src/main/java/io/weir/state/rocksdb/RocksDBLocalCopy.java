package io.weir.state.rocksdb;

import io.weir.runtime.checkpoint.IncrementalKeyedStateHandle;
import io.weir.runtime.state.KeyGroupRange;
import io.weir.runtime.state.TaskLocalStateStore;
import io.weir.runtime.storage.StreamStateHandle;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The local copy of a native RocksDB snapshot, for task-local recovery: the directory of the native
 * checkpoint itself (hard links to the SST files, copies of MANIFEST, CURRENT and OPTIONS), kept in
 * the subtask's {@link TaskLocalStateStore} after the upload, plus the backend's meta data and,
 * last, a descriptor (checkpoint id, key groups, database id) that says the copy is complete.
 *
 * <p>A restore uses a copy only when the descriptor names the checkpoint, key groups and database
 * of the handle it restores and every file the handle lists is there with the handle's size and
 * CRC-32; anything else (a file missing, truncated or changed, a copy of another checkpoint or of
 * other key groups) is logged, naming the file and the reason, the copy is deleted and the restore
 * reads the checkpoint storage.
 *
 * <p>{@link #complete} runs on the snapshot thread, {@link #restore} on the task thread.
 */
final class RocksDBLocalCopy {

  private static final Logger LOG = LoggerFactory.getLogger(RocksDBLocalCopy.class);

  /** The backend's meta data (the bytes of the handle's {@code metaData}). */
  static final String META_FILE = "_weir_meta";

  /** Written last: checkpoint id, key groups and database id of the copy. */
  static final String DESCRIPTOR_FILE = "_weir_local";

  private RocksDBLocalCopy() {}

  /**
   * Completes the copy in {@code dir} once {@code handle} was uploaded: writes the meta data and
   * the descriptor. Never fails the checkpoint: a copy that cannot be completed is deleted.
   *
   * @return true when the copy is complete and must be kept
   */
  static boolean complete(Path dir, byte[] meta, IncrementalKeyedStateHandle handle) {
    try {
      Files.write(dir.resolve(META_FILE), meta);
      Files.writeString(dir.resolve(DESCRIPTOR_FILE), descriptor(handle), StandardCharsets.UTF_8);
      return true;
    } catch (IOException e) {
      LOG.warn(
          "Cannot keep the local copy {} of checkpoint {}: {}; a restore of it will read the"
              + " checkpoint storage",
          dir,
          handle.checkpointId(),
          e.toString());
      return false;
    }
  }

  private static String descriptor(IncrementalKeyedStateHandle h) {
    return "checkpoint="
        + h.checkpointId()
        + "\nkey-groups="
        + h.range().startKeyGroup()
        + "-"
        + h.range().endKeyGroup()
        + "\nbackend="
        + h.backendId()
        + "\n";
  }

  /**
   * Restores {@code handle}, the state of this subtask in checkpoint {@code checkpointId}, from the
   * local copy into the empty {@code dbDir}, if there is a usable one.
   *
   * @return the backend's meta data from the copy, or null when there is no usable copy (then
   *     {@code dbDir} is empty again and the caller downloads from the checkpoint storage)
   */
  static byte[] restore(
      RocksDBKeyedStateBackend<?> backend,
      long checkpointId,
      IncrementalKeyedStateHandle handle,
      Path dbDir)
      throws IOException {
    TaskLocalStateStore store = backend.localState;
    if (store == null) {
      return null;
    }
    Path dir = store.snapshotForRestore(checkpointId, backend.operatorId);
    if (dir == null) {
      if (store.restoresFromLocal()) {
        LOG.info(
            "No local copy of checkpoint {} of '{}' {} in {}: restoring from the checkpoint"
                + " storage",
            checkpointId,
            backend.operatorName,
            backend.range,
            store.directory());
      }
      return null;
    }
    long start = System.nanoTime();
    String problem;
    try {
      problem = problem(dir, checkpointId, handle, backend.range);
    } catch (IOException e) {
      problem = dir + " cannot be read (" + e + ")";
    }
    if (problem != null) {
      LOG.warn(
          "Local copy of checkpoint {} of '{}' {} not used: {}; restoring from the checkpoint"
              + " storage (the copy is deleted)",
          checkpointId,
          backend.operatorName,
          backend.range,
          problem);
      store.discardSnapshot(checkpointId, backend.operatorId);
      return null;
    }
    try {
      Files.createDirectories(dbDir);
      long bytes = 0;
      for (String name : names(handle)) {
        Path source = dir.resolve(name);
        Path target = dbDir.resolve(name);
        bytes += Files.size(source);
        if (name.endsWith(".sst")) {
          link(source, target);
        } else {
          // RocksDB appends to MANIFEST: the copy must stay as it was taken.
          Files.copy(source, target);
        }
      }
      byte[] meta = Files.readAllBytes(dir.resolve(META_FILE));
      LOG.info(
          "Restored '{}' {} from the local copy {} of checkpoint {} ({} files, {} bytes) in {} ms",
          backend.operatorName,
          backend.range,
          dir,
          checkpointId,
          names(handle).size(),
          bytes,
          (System.nanoTime() - start) / 1_000_000);
      return meta;
    } catch (IOException e) {
      LOG.warn(
          "Local copy {} of checkpoint {} of '{}' could not be linked into {}: {}; restoring from"
              + " the checkpoint storage",
          dir,
          checkpointId,
          backend.operatorName,
          dbDir,
          e.toString());
      RocksDBKeyedStateBackend.deleteQuietly(dbDir);
      Files.createDirectories(dbDir);
      return null;
    }
  }

  /** Why the copy in {@code dir} must not be used for {@code handle}, or null when it may. */
  static String problem(
      Path dir, long checkpointId, IncrementalKeyedStateHandle handle, KeyGroupRange mine)
      throws IOException {
    if (handle.checkpointId() != checkpointId) {
      return "the state restored was taken for checkpoint "
          + handle.checkpointId()
          + ", not "
          + checkpointId;
    }
    if (!handle.range().equals(mine)) {
      return "the checkpoint's state has key groups "
          + handle.range()
          + ", this subtask owns "
          + mine
          + " (rescaled)";
    }
    Path descriptor = dir.resolve(DESCRIPTOR_FILE);
    if (!Files.isRegularFile(descriptor)) {
      return descriptor + " is missing (the copy is incomplete)";
    }
    String actual = Files.readString(descriptor, StandardCharsets.UTF_8);
    String expected = descriptor(handle);
    if (!actual.equals(expected)) {
      return descriptor
          + " describes another snapshot ("
          + actual.strip().replace('\n', ' ')
          + ", expected "
          + expected.strip().replace('\n', ' ')
          + ")";
    }
    String wrong = check(dir.resolve(META_FILE), handle.metaData());
    if (wrong != null) {
      return wrong;
    }
    for (IncrementalKeyedStateHandle.SharedFile f : handle.sharedFiles()) {
      wrong = check(dir.resolve(f.localName()), f.handle());
      if (wrong != null) {
        return wrong;
      }
    }
    for (IncrementalKeyedStateHandle.PrivateFile f : handle.privateFiles()) {
      wrong = check(dir.resolve(f.localName()), f.handle());
      if (wrong != null) {
        return wrong;
      }
    }
    return null;
  }

  /** Why {@code file} does not hold the bytes {@code handle} describes, or null when it does. */
  private static String check(Path file, StreamStateHandle handle) throws IOException {
    if (!Files.isRegularFile(file)) {
      return file + " is missing";
    }
    long size = Files.size(file);
    if (size != handle.size()) {
      return file + " has " + size + " bytes, the checkpoint says " + handle.size();
    }
    CRC32 crc = new CRC32();
    byte[] buffer = new byte[64 * 1024];
    try (InputStream in = Files.newInputStream(file)) {
      for (int n; (n = in.read(buffer)) > 0; ) {
        crc.update(buffer, 0, n);
      }
    }
    int actual = (int) crc.getValue();
    if (actual != handle.crc32()) {
      return file
          + " has CRC-32 "
          + Integer.toHexString(actual)
          + ", the checkpoint says "
          + Integer.toHexString(handle.crc32());
    }
    return null;
  }

  private static List<String> names(IncrementalKeyedStateHandle handle) {
    List<String> names = new ArrayList<>();
    handle.sharedFiles().forEach(f -> names.add(f.localName()));
    handle.privateFiles().forEach(f -> names.add(f.localName()));
    return names;
  }

  /** A hard link where the file system allows one, else a copy. */
  private static void link(Path source, Path target) throws IOException {
    try {
      Files.createLink(target, source);
    } catch (IOException | UnsupportedOperationException e) {
      Files.copy(source, target);
    }
  }
}
