package io.weir.runtime.storage;

/** Creating and verifying {@link StreamStateHandle.Inline} handles; shared by both storages. */
final class InlineState {

  private InlineState() {}

  /** A handle holding a copy of {@code data}, so a caller reusing its buffer cannot change it. */
  static StreamStateHandle.Inline of(byte[] data) {
    return new StreamStateHandle.Inline(
        data.clone(), MetadataSerializer.crc32(data, 0, data.length));
  }

  /** The handle's bytes, after checking them against its checksum. */
  static byte[] read(StreamStateHandle.Inline handle) throws DamagedStateException {
    byte[] data = handle.data();
    int actual = MetadataSerializer.crc32(data, 0, data.length);
    if (actual != handle.crc32()) {
      throw new DamagedStateException(
          "Inline state of "
              + data.length
              + " bytes is corrupt (checksum mismatch: expected "
              + MetadataSerializer.hex(handle.crc32())
              + ", computed "
              + MetadataSerializer.hex(actual)
              + ")");
    }
    return data;
  }
}
