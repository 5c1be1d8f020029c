package io.weir.connector.files;

import io.weir.api.source.SimpleVersionedSerializer;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/** Version 1: the path as length-prefixed UTF-8, then the offset. */
final class FileSplitSerializer implements SimpleVersionedSerializer<FileSplit> {

  private static final int VERSION = 1;

  @Override
  public int getVersion() {
    return VERSION;
  }

  @Override
  public byte[] serialize(FileSplit split) throws IOException {
    byte[] path = split.path().toString().getBytes(StandardCharsets.UTF_8);
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(path.length + 12);
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      out.writeInt(path.length);
      out.write(path);
      out.writeLong(split.offset());
    }
    return bytes.toByteArray();
  }

  @Override
  public FileSplit deserialize(int version, byte[] serialized) throws IOException {
    if (version != VERSION) {
      throw new IOException(
          "Unknown version " + version + " of a file split; this Weir reads version " + VERSION);
    }
    try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(serialized))) {
      byte[] path = new byte[in.readInt()];
      in.readFully(path);
      return new FileSplit(Path.of(new String(path, StandardCharsets.UTF_8)), in.readLong());
    }
  }
}
