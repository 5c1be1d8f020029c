package io.weir.runtime.storage;

import io.weir.runtime.checkpoint.ChannelStateHandle;
import io.weir.runtime.checkpoint.CompletedCheckpoint;
import io.weir.runtime.checkpoint.IncrementalKeyedStateHandle;
import io.weir.runtime.checkpoint.InputChannelStateHandle;
import io.weir.runtime.checkpoint.KeyGroupsStateHandle;
import io.weir.runtime.checkpoint.KeyedStateHandle;
import io.weir.runtime.checkpoint.OperatorState;
import io.weir.runtime.checkpoint.OperatorStateHandle;
import io.weir.runtime.checkpoint.OperatorSubtaskState;
import io.weir.runtime.checkpoint.ResultSubpartitionInfo;
import io.weir.runtime.checkpoint.ResultSubpartitionStateHandle;
import io.weir.runtime.checkpoint.SourceSplitsHandle;
import io.weir.runtime.checkpoint.StateSchema;
import io.weir.runtime.state.DefaultOperatorStateStore;
import io.weir.runtime.state.KeyGroupRange;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.zip.CRC32;

/**
 * The binary format of a checkpoint's {@code _metadata} file. Never Java serialization: the format
 * is written out field by field, so that it can be read by later Weir versions and inspected by
 * tools.
 *
 * <pre>
 * file       = magic:int(0x57454952 "WEIR") version:int body crc:int
 *              (crc = CRC-32 of every byte before it; every format version ends this way)
 * body(v1)   = jobId:string checkpointId:long timestamp:long savepoint:bool
 *              operatorCount:int operator*
 * operator   = id:string name:string parallelism:int maxParallelism:int subtaskCount:int subtask*
 * subtask    = flags:byte (1 finished, 2 keyed present, 4 operator state present,
 *                          8 incremental keyed present; v2, 16 schema present; v3,
 *                          32 channel state present, 64 source splits present; v4)
 *              [keyed] [incremental] [operatorState] [schema] [channelState] [splits]
 * keyed      = startKeyGroup:int endKeyGroup:int offsets handle
 * incremental = startKeyGroup:int endKeyGroup:int backendId:string checkpointId:long
 *              metaData:handle sharedCount:int (localName:string handle)*
 *              privateCount:int (localName:string handle)*          (v2)
 * operatorState = stateCount:int (name:string mode:byte(0 split, 1 union) offsets)* handle
 * schema     = hasKey:bool [keySnapshot:bytes] stateCount:int
 *              (name:string kind:byte valueSnapshot:bytes [mapKeySnapshot:bytes (map)])*   (v3)
 *              kind: 0 value, 1 list, 2 map, 3 reducing, 4 aggregating,
 *                    5 operator list, 6 operator union list
 * channelState = streamCount:int handle*
 *              inputCount:int (channel:int stream:int offsets)*
 *              outputCount:int (edgeId:int subpartition:int stream:int offsets)*     (v4)
 *              (stream: index into the handles before; offsets: where each entry of the
 *              channel's in-flight data starts in that stream, see ChannelStateHandle)
 * splits     = handle splitOffsets:offsets watermarkOffsets:offsets               (v4)
 * bytes      = length:int byte*  (a versioned serializer snapshot: class name, version, body)
 * offsets    = count:int long*
 * handle     = 1:byte length:int byte* crc:int              (inline)
 *            | 2:byte relativePath:string size:long crc:int  (file)
 * string     = length:int (-1 for null) UTF-8 bytes
 * </pre>
 *
 * All numbers are big-endian. Reading checks, in order: the magic number, the checksum, the
 * version; so a damaged file is reported as corrupt and only an intact file from a newer Weir as
 * too new.
 *
 * <p>Up to format 3 the head operator of a task kept the task's own state among its operator list
 * states, by name: the in-flight data of gate channel {@code c} as {@code _channel_in_<c>}, that of
 * channel {@code c} of output edge {@code e} as {@code _channel_out_<e>_<c>}, a source's splits and
 * split watermarks as {@code _source_splits}. Reading such a file turns those lists into the typed
 * fields of {@link OperatorSubtaskState}, pointing into the same operator-state stream ({@link
 * NamedListsFormat}), so nothing past this class sees the old layout. Stateless and thread-safe.
 */
public final class MetadataSerializer {

  /** "WEIR" in ASCII. */
  static final int MAGIC = 0x57454952;

  /** The format this Weir writes, and the newest it reads. */
  static final int VERSION = 4;

  /** The last format that kept in-flight data and splits as named operator lists. */
  static final int LAST_NAMED_LISTS_VERSION = 3;

  private static final int HEADER_BYTES = 8;
  private static final int TRAILER_BYTES = 4;

  private static final byte FINISHED = 1;
  private static final byte HAS_KEYED = 2;
  private static final byte HAS_OPERATOR = 4;
  private static final byte HAS_INCREMENTAL = 8;
  private static final byte HAS_SCHEMA = 16;
  private static final byte HAS_CHANNEL_STATE = 32;
  private static final byte HAS_SPLITS = 64;

  private static final byte INLINE = 1;
  private static final byte FILE = 2;

  private static final byte SPLIT = 0;
  private static final byte UNION = 1;

  private MetadataSerializer() {}

  /** The metadata file's bytes for {@code checkpoint}. */
  public static byte[] serialize(CompletedCheckpoint checkpoint) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(256);
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      out.writeInt(MAGIC);
      out.writeInt(VERSION);
      writeBody(out, checkpoint);
      out.flush();
      out.writeInt(crc32(bytes.toByteArray(), 0, bytes.size()));
    } catch (IOException e) {
      throw new UncheckedIOException("Writing to memory cannot fail", e);
    }
    return bytes.toByteArray();
  }

  /**
   * Reads the metadata file {@code source} whose bytes are {@code bytes}.
   *
   * @param source names the file in error messages
   * @throws DamagedStateException naming {@code source} if it is not a Weir metadata file, is
   *     corrupt, or was written in a newer format: reading it again will not help
   */
  public static CompletedCheckpoint deserialize(byte[] bytes, String source) throws IOException {
    if (bytes.length < 4 || ByteBuffer.wrap(bytes).getInt() != MAGIC) {
      throw new DamagedStateException(
          source + " is not a Weir checkpoint metadata file (it does not start with 'WEIR')");
    }
    if (bytes.length < HEADER_BYTES + TRAILER_BYTES) {
      throw new DamagedStateException(
          source + " is corrupt: truncated to " + bytes.length + " bytes");
    }
    int end = bytes.length - TRAILER_BYTES;
    int stored = ByteBuffer.wrap(bytes, end, TRAILER_BYTES).getInt();
    int actual = crc32(bytes, 0, end);
    if (stored != actual) {
      throw new DamagedStateException(
          source
              + " is corrupt: checksum mismatch (stored "
              + hex(stored)
              + ", computed "
              + hex(actual)
              + ")");
    }
    int version = ByteBuffer.wrap(bytes, 4, 4).getInt();
    if (version > VERSION) {
      throw new DamagedStateException(
          source
              + " was written by a newer Weir: format version "
              + version
              + ", this Weir reads up to "
              + VERSION
              + ". Restore it with that Weir version or newer.");
    }
    if (version < 1) {
      throw new DamagedStateException(source + " is corrupt: format version " + version);
    }
    DataInputStream in =
        new DataInputStream(new ByteArrayInputStream(bytes, HEADER_BYTES, end - HEADER_BYTES));
    try {
      CompletedCheckpoint checkpoint = readBody(in, version);
      if (in.available() != 0) {
        throw new DamagedStateException(
            in.available() + " unexpected bytes after the last operator");
      }
      return checkpoint;
    } catch (EOFException e) {
      throw new DamagedStateException(source + " is corrupt: it ends in the middle of a record", e);
    } catch (IOException | RuntimeException e) {
      // The checksum matched, so the writer itself produced this: say so.
      throw new DamagedStateException(source + " is corrupt: " + e.getMessage(), e);
    }
  }

  static int crc32(byte[] bytes, int offset, int length) {
    CRC32 crc = new CRC32();
    crc.update(bytes, offset, length);
    return (int) crc.getValue();
  }

  static String hex(int crc) {
    return String.format(Locale.ROOT, "%08x", crc);
  }

  private static void writeBody(DataOutputStream out, CompletedCheckpoint cp) throws IOException {
    writeString(out, cp.jobId());
    out.writeLong(cp.checkpointId());
    out.writeLong(cp.timestamp());
    out.writeBoolean(cp.savepoint());
    out.writeInt(cp.operators().size());
    for (OperatorState op : cp.operators()) {
      writeString(out, op.operatorId());
      writeString(out, op.operatorName());
      out.writeInt(op.parallelism());
      out.writeInt(op.maxParallelism());
      out.writeInt(op.subtasks().size());
      for (OperatorSubtaskState subtask : op.subtasks()) {
        writeSubtask(out, subtask);
      }
    }
  }

  static void writeSubtask(DataOutputStream out, OperatorSubtaskState subtask) throws IOException {
    int flags =
        (subtask.finished() ? FINISHED : 0)
            | (subtask.keyed() instanceof KeyGroupsStateHandle ? HAS_KEYED : 0)
            | (subtask.keyed() instanceof IncrementalKeyedStateHandle ? HAS_INCREMENTAL : 0)
            | (subtask.operator() != null ? HAS_OPERATOR : 0)
            | (subtask.schema() != null ? HAS_SCHEMA : 0)
            | (subtask.hasChannelState() ? HAS_CHANNEL_STATE : 0)
            | (subtask.splits() != null ? HAS_SPLITS : 0);
    out.writeByte(flags);
    if (subtask.keyed() instanceof KeyGroupsStateHandle keyed) {
      out.writeInt(keyed.range().startKeyGroup());
      out.writeInt(keyed.range().endKeyGroup());
      writeOffsets(out, keyed.offsets());
      writeHandle(out, keyed.data());
    } else if (subtask.keyed() instanceof IncrementalKeyedStateHandle incremental) {
      out.writeInt(incremental.range().startKeyGroup());
      out.writeInt(incremental.range().endKeyGroup());
      writeString(out, incremental.backendId());
      out.writeLong(incremental.checkpointId());
      writeHandle(out, incremental.metaData());
      out.writeInt(incremental.sharedFiles().size());
      for (IncrementalKeyedStateHandle.SharedFile file : incremental.sharedFiles()) {
        writeString(out, file.localName());
        writeHandle(out, file.handle());
      }
      out.writeInt(incremental.privateFiles().size());
      for (IncrementalKeyedStateHandle.PrivateFile file : incremental.privateFiles()) {
        writeString(out, file.localName());
        writeHandle(out, file.handle());
      }
    }
    OperatorStateHandle operator = subtask.operator();
    if (operator != null) {
      out.writeInt(operator.states().size());
      for (Map.Entry<String, OperatorStateHandle.StateMetaInfo> state :
          operator.states().entrySet()) {
        writeString(out, state.getKey());
        out.writeByte(
            switch (state.getValue().mode()) {
              case SPLIT -> SPLIT;
              case UNION -> UNION;
            });
        writeOffsets(out, state.getValue().offsets());
      }
      writeHandle(out, operator.data());
    }
    if (subtask.schema() != null) {
      writeSchema(out, subtask.schema());
    }
    if (subtask.hasChannelState()) {
      writeChannelState(out, subtask);
    }
    if (subtask.splits() != null) {
      writeHandle(out, subtask.splits().data());
      writeOffsets(out, subtask.splits().splits());
      writeOffsets(out, subtask.splits().watermarks());
    }
  }

  /** The subtask's channel handles, with each stream they share written once. */
  private static void writeChannelState(DataOutputStream out, OperatorSubtaskState subtask)
      throws IOException {
    List<StreamStateHandle> streams = new ArrayList<>();
    for (ChannelStateHandle c : subtask.channelState()) {
      if (streamIndex(streams, c.data()) < 0) {
        streams.add(c.data());
      }
    }
    out.writeInt(streams.size());
    for (StreamStateHandle stream : streams) {
      writeHandle(out, stream);
    }
    out.writeInt(subtask.inputChannelState().size());
    for (InputChannelStateHandle c : subtask.inputChannelState()) {
      out.writeInt(c.channel());
      out.writeInt(streamIndex(streams, c.data()));
      writeOffsets(out, c.offsets());
    }
    out.writeInt(subtask.resultSubpartitionState().size());
    for (ResultSubpartitionStateHandle c : subtask.resultSubpartitionState()) {
      out.writeInt(c.subpartition().edgeId());
      out.writeInt(c.subpartition().subpartition());
      out.writeInt(streamIndex(streams, c.data()));
      writeOffsets(out, c.offsets());
    }
  }

  private static int streamIndex(List<StreamStateHandle> streams, StreamStateHandle stream) {
    for (int i = 0; i < streams.size(); i++) {
      if (streams.get(i) == stream || streams.get(i).equals(stream)) {
        return i;
      }
    }
    return -1;
  }

  private static OperatorSubtaskState readChannelState(
      DataInputStream in,
      KeyedStateHandle keyed,
      OperatorStateHandle operator,
      boolean finished,
      StateSchema schema)
      throws IOException {
    int streamCount = readCount(in, "channel state streams");
    List<StreamStateHandle> streams = new ArrayList<>(streamCount);
    for (int i = 0; i < streamCount; i++) {
      streams.add(readHandle(in));
    }
    int inputCount = readCount(in, "input channel states");
    List<InputChannelStateHandle> inputs = new ArrayList<>(inputCount);
    for (int i = 0; i < inputCount; i++) {
      int channel = in.readInt();
      inputs.add(new InputChannelStateHandle(channel, stream(in, streams), readOffsets(in)));
    }
    int outputCount = readCount(in, "output channel states");
    List<ResultSubpartitionStateHandle> outputs = new ArrayList<>(outputCount);
    for (int i = 0; i < outputCount; i++) {
      ResultSubpartitionInfo info = new ResultSubpartitionInfo(in.readInt(), in.readInt());
      outputs.add(new ResultSubpartitionStateHandle(info, stream(in, streams), readOffsets(in)));
    }
    return new OperatorSubtaskState(keyed, operator, inputs, outputs, null, finished, schema);
  }

  private static StreamStateHandle stream(DataInputStream in, List<StreamStateHandle> streams)
      throws IOException {
    int index = in.readInt();
    if (index < 0 || index >= streams.size()) {
      throw new IOException("channel state refers to stream " + index + " of " + streams.size());
    }
    return streams.get(index);
  }

  private static void writeSchema(DataOutputStream out, StateSchema schema) throws IOException {
    out.writeBoolean(schema.keySerializer() != null);
    if (schema.keySerializer() != null) {
      writeBytes(out, schema.keySerializer());
    }
    out.writeInt(schema.states().size());
    for (StateSchema.Entry e : schema.states()) {
      writeString(out, e.name());
      out.writeByte(e.kind().ordinal());
      writeBytes(out, e.valueSerializer());
      if (e.kind() == StateSchema.Kind.MAP) {
        writeBytes(out, e.mapKeySerializer());
      }
    }
  }

  private static StateSchema readSchema(DataInputStream in) throws IOException {
    byte[] key = in.readBoolean() ? readBytes(in) : null;
    int count = readCount(in, "state schemas");
    List<StateSchema.Entry> states = new ArrayList<>(count);
    StateSchema.Kind[] kinds = StateSchema.Kind.values();
    for (int i = 0; i < count; i++) {
      String name = readString(in);
      int kind = in.readUnsignedByte();
      if (kind >= kinds.length) {
        throw new IOException("unknown state kind " + kind + " of state '" + name + "'");
      }
      byte[] value = readBytes(in);
      byte[] mapKey = kinds[kind] == StateSchema.Kind.MAP ? readBytes(in) : null;
      states.add(new StateSchema.Entry(name, kinds[kind], value, mapKey));
    }
    return new StateSchema(key, states);
  }

  private static void writeBytes(DataOutputStream out, byte[] bytes) throws IOException {
    out.writeInt(bytes.length);
    out.write(bytes);
  }

  private static byte[] readBytes(DataInputStream in) throws IOException {
    byte[] bytes = new byte[readCount(in, "snapshot bytes")];
    in.readFully(bytes);
    return bytes;
  }

  static void writeHandle(DataOutputStream out, StreamStateHandle handle) throws IOException {
    if (handle instanceof StreamStateHandle.Inline inline) {
      out.writeByte(INLINE);
      out.writeInt(inline.data().length);
      out.write(inline.data());
      out.writeInt(inline.crc32());
    } else if (handle instanceof StreamStateHandle.File file) {
      out.writeByte(FILE);
      writeString(out, file.relativePath());
      out.writeLong(file.size());
      out.writeInt(file.crc32());
    } else {
      throw new IllegalArgumentException("Unknown state handle " + handle);
    }
  }

  private static void writeOffsets(DataOutputStream out, long[] offsets) throws IOException {
    out.writeInt(offsets.length);
    for (long offset : offsets) {
      out.writeLong(offset);
    }
  }

  static void writeString(DataOutputStream out, String s) throws IOException {
    if (s == null) {
      out.writeInt(-1);
      return;
    }
    byte[] utf8 = s.getBytes(StandardCharsets.UTF_8);
    out.writeInt(utf8.length);
    out.write(utf8);
  }

  private static CompletedCheckpoint readBody(DataInputStream in, int version) throws IOException {
    String jobId = readString(in);
    long checkpointId = in.readLong();
    long timestamp = in.readLong();
    boolean savepoint = in.readBoolean();
    int operatorCount = readCount(in, "operators");
    List<OperatorState> operators = new ArrayList<>();
    for (int i = 0; i < operatorCount; i++) {
      String id = readString(in);
      String name = readString(in);
      int parallelism = in.readInt();
      int maxParallelism = in.readInt();
      int subtaskCount = readCount(in, "subtasks");
      List<OperatorSubtaskState> subtasks = new ArrayList<>();
      for (int s = 0; s < subtaskCount; s++) {
        subtasks.add(readSubtask(in, version));
      }
      operators.add(new OperatorState(id, name, parallelism, maxParallelism, subtasks));
    }
    return new CompletedCheckpoint(jobId, checkpointId, timestamp, savepoint, operators);
  }

  /** A subtask in this Weir's format. */
  static OperatorSubtaskState readSubtask(DataInputStream in) throws IOException {
    return readSubtask(in, VERSION);
  }

  private static OperatorSubtaskState readSubtask(DataInputStream in, int version)
      throws IOException {
    int flags = in.readUnsignedByte();
    int known = FINISHED | HAS_KEYED | HAS_OPERATOR | HAS_INCREMENTAL | HAS_SCHEMA;
    if (version > LAST_NAMED_LISTS_VERSION) {
      known |= HAS_CHANNEL_STATE | HAS_SPLITS;
    }
    if ((flags & ~known) != 0) {
      throw new IOException("unknown subtask flags " + flags);
    }
    KeyedStateHandle keyed = null;
    if ((flags & HAS_KEYED) != 0) {
      KeyGroupRange range = new KeyGroupRange(in.readInt(), in.readInt());
      keyed = new KeyGroupsStateHandle(range, readOffsets(in), readHandle(in));
    } else if ((flags & HAS_INCREMENTAL) != 0) {
      KeyGroupRange range = new KeyGroupRange(in.readInt(), in.readInt());
      String backendId = readString(in);
      long checkpointId = in.readLong();
      StreamStateHandle metaData = readHandle(in);
      int sharedCount = readCount(in, "shared files");
      List<IncrementalKeyedStateHandle.SharedFile> shared = new ArrayList<>(sharedCount);
      for (int i = 0; i < sharedCount; i++) {
        shared.add(
            new IncrementalKeyedStateHandle.SharedFile(readString(in), readHandle(in), false));
      }
      int privateCount = readCount(in, "private files");
      List<IncrementalKeyedStateHandle.PrivateFile> own = new ArrayList<>(privateCount);
      for (int i = 0; i < privateCount; i++) {
        own.add(new IncrementalKeyedStateHandle.PrivateFile(readString(in), readHandle(in)));
      }
      keyed =
          new IncrementalKeyedStateHandle(range, backendId, checkpointId, metaData, shared, own);
    }
    OperatorStateHandle operator = null;
    if ((flags & HAS_OPERATOR) != 0) {
      int stateCount = readCount(in, "operator states");
      Map<String, OperatorStateHandle.StateMetaInfo> states = new LinkedHashMap<>();
      for (int i = 0; i < stateCount; i++) {
        String name = readString(in);
        byte code = in.readByte();
        DefaultOperatorStateStore.Mode mode =
            switch (code) {
              case SPLIT -> DefaultOperatorStateStore.Mode.SPLIT;
              case UNION -> DefaultOperatorStateStore.Mode.UNION;
              default -> throw new IOException("unknown operator state mode " + code);
            };
        states.put(name, new OperatorStateHandle.StateMetaInfo(mode, readOffsets(in)));
      }
      operator = new OperatorStateHandle(Collections.unmodifiableMap(states), readHandle(in));
    }
    StateSchema schema = (flags & HAS_SCHEMA) != 0 ? readSchema(in) : null;
    boolean finished = (flags & FINISHED) != 0;
    if (version <= LAST_NAMED_LISTS_VERSION) {
      return NamedListsFormat.toTypedFields(
          new OperatorSubtaskState(keyed, operator, finished, schema));
    }
    OperatorSubtaskState subtask =
        (flags & HAS_CHANNEL_STATE) != 0
            ? readChannelState(in, keyed, operator, finished, schema)
            : new OperatorSubtaskState(keyed, operator, finished, schema);
    if ((flags & HAS_SPLITS) != 0) {
      SourceSplitsHandle splits =
          new SourceSplitsHandle(readHandle(in), readOffsets(in), readOffsets(in));
      subtask =
          new OperatorSubtaskState(
              keyed,
              operator,
              subtask.inputChannelState(),
              subtask.resultSubpartitionState(),
              splits,
              finished,
              schema);
    }
    return subtask;
  }

  static StreamStateHandle readHandle(DataInputStream in) throws IOException {
    byte tag = in.readByte();
    return switch (tag) {
      case INLINE -> {
        byte[] data = new byte[readCount(in, "inline state bytes")];
        in.readFully(data);
        yield new StreamStateHandle.Inline(data, in.readInt());
      }
      case FILE -> new StreamStateHandle.File(readString(in), in.readLong(), in.readInt());
      default -> throw new IOException("unknown state handle tag " + tag);
    };
  }

  private static long[] readOffsets(DataInputStream in) throws IOException {
    // Eight bytes each: a count beyond what is left is corruption, not a reason to allocate.
    long[] offsets = new long[readCount(in, "offsets", 8)];
    for (int i = 0; i < offsets.length; i++) {
      offsets[i] = in.readLong();
    }
    return offsets;
  }

  static String readString(DataInputStream in) throws IOException {
    int length = in.readInt();
    if (length == -1) {
      return null;
    }
    if (length < 0 || length > in.available()) {
      throw new IOException("invalid string length " + length);
    }
    byte[] utf8 = new byte[length];
    in.readFully(utf8);
    return new String(utf8, StandardCharsets.UTF_8);
  }

  static int readCount(DataInputStream in, String what) throws IOException {
    return readCount(in, what, 1);
  }

  /** A count of elements of at least {@code minBytes} each, checked against what is left. */
  private static int readCount(DataInputStream in, String what, int minBytes) throws IOException {
    int count = in.readInt();
    if (count < 0 || (long) count * minBytes > in.available()) {
      throw new IOException("invalid number of " + what + ": " + count);
    }
    return count;
  }
}
