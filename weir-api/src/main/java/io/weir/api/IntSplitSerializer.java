package io.weir.api;

import io.weir.api.source.SimpleVersionedSerializer;
import java.nio.ByteBuffer;

/**
 * The splits of the built-in sources whose split is one {@code int} (a position in a collection, a
 * socket source's only split): four bytes, big-endian, version 1.
 */
final class IntSplitSerializer implements SimpleVersionedSerializer<Integer> {

  static final IntSplitSerializer INSTANCE = new IntSplitSerializer();

  private IntSplitSerializer() {}

  @Override
  public int getVersion() {
    return 1;
  }

  @Override
  public byte[] serialize(Integer split) {
    return ByteBuffer.allocate(Integer.BYTES).putInt(split).array();
  }

  @Override
  public Integer deserialize(int version, byte[] serialized) {
    return ByteBuffer.wrap(serialized).getInt();
  }
}
