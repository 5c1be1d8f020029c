package io.weir.api.source;

import java.io.IOException;

/**
 * Serializes small metadata objects such as source splits and sink transactions, with a version
 * stored next to the bytes so old checkpoints stay readable after the format changes.
 */
public interface SimpleVersionedSerializer<T> {

  int getVersion();

  byte[] serialize(T obj) throws IOException;

  T deserialize(int version, byte[] serialized) throws IOException;
}
