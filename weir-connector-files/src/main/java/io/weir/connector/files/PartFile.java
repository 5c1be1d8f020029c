package io.weir.connector.files;

import io.weir.api.source.SimpleVersionedSerializer;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.Serializable;
import java.io.Writer;
import java.nio.channels.FileChannel;

/**
 * One transaction of the {@link ExactlyOnceFileSink}: a part file, hidden while in progress and
 * renamed when committed. The file is created on the first line, so an empty transaction has none.
 * Task thread only.
 */
final class PartFile {

  /** The file name once committed; null until the sink knows its subtask (see the sink). */
  String name;

  /** True once a line was written, so the in-progress file exists until committed or aborted. */
  boolean hasData;

  /** Open while lines are written, null after pre-commit or for a restored transaction. */
  FileChannel channel;

  Writer out;

  PartFile(String name, boolean hasData) {
    this.name = name;
    this.hasData = hasData;
  }

  @Override
  public String toString() {
    return "part file " + (name == null ? "(unnamed, empty)" : name);
  }

  /** What a checkpoint keeps of a part file: its name and whether it holds data. */
  static final class Serializer implements SimpleVersionedSerializer<PartFile>, Serializable {
    private static final long serialVersionUID = 1L;
    private static final int VERSION = 1;

    @Override
    public int getVersion() {
      return VERSION;
    }

    @Override
    public byte[] serialize(PartFile file) throws IOException {
      ByteArrayOutputStream bytes = new ByteArrayOutputStream(64);
      try (DataOutputStream out = new DataOutputStream(bytes)) {
        out.writeBoolean(file.name != null);
        if (file.name != null) {
          out.writeUTF(file.name);
        }
        out.writeBoolean(file.hasData);
      }
      return bytes.toByteArray();
    }

    @Override
    public PartFile deserialize(int version, byte[] serialized) throws IOException {
      if (version != VERSION) {
        throw new IOException(
            "Unknown version "
                + version
                + " of a file sink transaction; this Weir reads version "
                + VERSION);
      }
      try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(serialized))) {
        String name = in.readBoolean() ? in.readUTF() : null;
        return new PartFile(name, in.readBoolean());
      }
    }
  }
}
