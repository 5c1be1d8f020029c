package io.weir.runtime.storage;

/**
 * Where the bytes of one piece of state live: inline (in the checkpoint metadata, or in the
 * coordinator's memory) or in a file of the checkpoint storage. Every handle carries the CRC-32 of
 * its bytes, verified on restore.
 */
public sealed interface StreamStateHandle {

  /** Number of bytes of state. */
  long size();

  /** CRC-32 of the bytes. */
  int crc32();

  /**
   * State kept in the metadata itself (below the inline threshold, or with JobManager storage).
   *
   * @param data the bytes
   * @param crc32 their CRC-32
   */
  record Inline(byte[] data, int crc32) implements StreamStateHandle {
    @Override
    public long size() {
      return data.length;
    }
  }

  /**
   * State in a file of the checkpoint storage.
   *
   * @param relativePath the file, relative to the job's checkpoint directory (so a copied
   *     checkpoint directory restores from its new place), e.g. {@code chk-7/3f2a...}
   * @param size number of bytes
   * @param crc32 their CRC-32
   */
  record File(String relativePath, long size, int crc32) implements StreamStateHandle {}
}
