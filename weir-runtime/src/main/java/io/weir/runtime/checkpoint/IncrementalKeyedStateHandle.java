package io.weir.runtime.checkpoint;

import io.weir.runtime.state.KeyGroupRange;
import io.weir.runtime.storage.StreamStateHandle;
import java.util.List;

/**
 * The keyed state of one operator subtask as the files of a native RocksDB checkpoint. SST files
 * are immutable, so an incremental checkpoint uploads only the ones no earlier checkpoint uploaded
 * and refers to the others; those live in the storage's {@code shared/} directory and are counted
 * by the coordinator's {@link SharedStateRegistry}. The remaining files (MANIFEST, CURRENT,
 * OPTIONS) belong to this checkpoint alone.
 *
 * @param range the key groups in the database
 * @param backendId identifies the database the files came from and the lineage of their uploads (a
 *     full checkpoint uploads every file anew under a new one): with a file's local name it forms
 *     the file's key in the shared-state registry
 * @param checkpointId the checkpoint these files were taken for
 * @param metaData the backend's description of its states (names, kinds, serializers, column
 *     families)
 * @param sharedFiles SST files, shared with other checkpoints of the same database
 * @param privateFiles the other files of the native checkpoint
 */
public record IncrementalKeyedStateHandle(
    KeyGroupRange range,
    String backendId,
    long checkpointId,
    StreamStateHandle metaData,
    List<SharedFile> sharedFiles,
    List<PrivateFile> privateFiles)
    implements KeyedStateHandle {

  public IncrementalKeyedStateHandle {
    sharedFiles = List.copyOf(sharedFiles);
    privateFiles = List.copyOf(privateFiles);
  }

  /**
   * An SST file.
   *
   * @param localName the file's name in the database directory, e.g. {@code 000042.sst}
   * @param handle where it is stored
   * @param reused true when an earlier checkpoint uploaded it: the registry then substitutes the
   *     handle it registered for {@link #registryKey}; only set between a task and the coordinator
   */
  public record SharedFile(String localName, StreamStateHandle handle, boolean reused) {}

  /**
   * A file of this checkpoint alone.
   *
   * @param localName the file's name in the database directory
   * @param handle where it is stored
   */
  public record PrivateFile(String localName, StreamStateHandle handle) {}

  /** The key of a shared file in the registry: the same SST of the same database. */
  public String registryKey(SharedFile file) {
    return backendId + "/" + file.localName();
  }

  @Override
  public long stateSize() {
    long size = metaData.size();
    for (SharedFile f : sharedFiles) {
      size += f.handle().size();
    }
    for (PrivateFile f : privateFiles) {
      size += f.handle().size();
    }
    return size;
  }

  @Override
  public long checkpointedSize() {
    long size = metaData.size();
    for (SharedFile f : sharedFiles) {
      if (!f.reused()) {
        size += f.handle().size();
      }
    }
    for (PrivateFile f : privateFiles) {
      size += f.handle().size();
    }
    return size;
  }

  /** This handle with its shared files replaced. */
  public IncrementalKeyedStateHandle withSharedFiles(List<SharedFile> files) {
    return new IncrementalKeyedStateHandle(
        range, backendId, checkpointId, metaData, files, privateFiles);
  }
}
