package io.weir.cli;

import io.weir.api.typeutils.DataInputDeserializer;
import io.weir.runtime.checkpoint.ChannelStateHandle;
import io.weir.runtime.checkpoint.CompletedCheckpoint;
import io.weir.runtime.checkpoint.IncrementalKeyedStateHandle;
import io.weir.runtime.checkpoint.KeyGroupsStateHandle;
import io.weir.runtime.checkpoint.OperatorState;
import io.weir.runtime.checkpoint.OperatorStateHandle;
import io.weir.runtime.checkpoint.OperatorSubtaskState;
import io.weir.runtime.checkpoint.SerializedSplits;
import io.weir.runtime.checkpoint.SourceSplitsHandle;
import io.weir.runtime.state.HeapSnapshotStrategy;
import io.weir.runtime.storage.CheckpointStateReader;
import io.weir.runtime.storage.RetainedCheckpoint;
import io.weir.runtime.storage.StreamStateHandle;
import java.io.IOException;
import java.io.PrintWriter;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * What {@code weir inspect} prints about a checkpoint: its id, job and time, and per operator and
 * subtask its keyed state (with state names, kinds, serializers and bytes per key group where the
 * canonical format is readable), operator state, channel state and source splits. Stateless.
 */
final class CheckpointSummary {

  private CheckpointSummary() {}

  static void print(RetainedCheckpoint retained, ClassLoader loader, PrintWriter out) {
    CompletedCheckpoint cp = retained.checkpoint();
    long stateSize = 0;
    for (OperatorState op : cp.operators()) {
      for (OperatorSubtaskState s : op.subtasks()) {
        stateSize += s.stateSize();
      }
    }
    out.println((cp.savepoint() ? "Savepoint " : "Checkpoint ") + cp.checkpointId());
    out.println("  job id      " + cp.jobId());
    out.println(
        "  triggered   " + Instant.ofEpochMilli(cp.timestamp()) + " (" + cp.timestamp() + ")");
    out.println("  location    " + retained.externalPointer());
    out.println("  state size  " + Sizes.format(stateSize) + " (" + stateSize + " bytes)");
    out.println("  operators   " + cp.operators().size());
    CheckpointStateReader storage = retained.storage();
    for (OperatorState op : cp.operators()) {
      out.println();
      out.println("Operator '" + op.operatorName() + "'");
      out.println("  uid/id           " + op.operatorId());
      out.println("  parallelism      " + op.parallelism());
      out.println("  max parallelism  " + op.maxParallelism());
      for (int i = 0; i < op.subtasks().size(); i++) {
        OperatorSubtaskState subtask = op.subtasks().get(i);
        String prefix = "  subtask " + i;
        if (subtask.hasNoState()) {
          out.println(prefix + ": no state" + (subtask.finished() ? " (finished)" : ""));
          continue;
        }
        if (subtask.finished()) {
          out.println(prefix + ": finished");
        }
        if (subtask.keyed() instanceof KeyGroupsStateHandle keyed) {
          printCanonical(prefix, keyed, storage, loader, op.operatorName(), out);
        } else if (subtask.keyed() instanceof IncrementalKeyedStateHandle files) {
          printNative(prefix, files, storage, loader, op.operatorName(), out);
        }
        if (subtask.operator() != null) {
          printOperatorState(prefix, subtask.operator(), storage, out);
        }
        if (subtask.hasChannelState()) {
          printChannelState(prefix, subtask, storage, out);
        }
        if (subtask.splits() != null) {
          printSplits(prefix, subtask.splits(), storage, out);
        }
      }
    }
  }

  private static void printCanonical(
      String prefix,
      KeyGroupsStateHandle keyed,
      CheckpointStateReader storage,
      ClassLoader loader,
      String operatorName,
      PrintWriter out) {
    out.println(
        prefix
            + ": keyed state, canonical key groups "
            + keyed.range().startKeyGroup()
            + "-"
            + keyed.range().endKeyGroup()
            + ", "
            + Sizes.format(keyed.stateSize())
            + " "
            + where(keyed.data()));
    CanonicalKeyedState state;
    try {
      state =
          new CanonicalKeyedState(
              storage.readState(keyed.data()),
              keyed.offsets(),
              keyed.range().startKeyGroup(),
              loader,
              operatorName);
    } catch (IOException | RuntimeException | LinkageError e) {
      out.println(
          "    (cannot read it: "
              + WeirCli.describe(e)
              + CanonicalKeyedState.classpathHint(e)
              + ")");
      return;
    }
    printHeader(state.header(), out);
    StringBuilder sizes = new StringBuilder("    bytes per key group:");
    for (int i = 0; i < keyed.offsets().length; i++) {
      if (i % 16 == 0) {
        sizes
            .append(System.lineSeparator())
            .append(String.format("      %5d:", keyed.range().startKeyGroup() + i));
      }
      sizes.append(' ').append(state.keyGroupSize(i));
    }
    out.println(sizes);
  }

  private static void printHeader(HeapSnapshotStrategy.Header header, PrintWriter out) {
    out.println("    key serializer " + CanonicalKeyedState.describe(header.keySerializer()));
    for (HeapSnapshotStrategy.StateMeta s : header.states()) {
      out.println(
          "    state '"
              + s.name()
              + "' "
              + s.kind()
              + ", value serializer "
              + CanonicalKeyedState.describe(s.valueSerializer())
              + (s.mapKeySerializer() == null
                  ? ""
                  : ", map key serializer " + CanonicalKeyedState.describe(s.mapKeySerializer())));
    }
  }

  private static void printNative(
      String prefix,
      IncrementalKeyedStateHandle files,
      CheckpointStateReader storage,
      ClassLoader loader,
      String operatorName,
      PrintWriter out) {
    long shared = files.sharedFiles().stream().mapToLong(f -> f.handle().size()).sum();
    long own = files.privateFiles().stream().mapToLong(f -> f.handle().size()).sum();
    out.println(
        prefix
            + ": keyed state, native RocksDB files of checkpoint "
            + files.checkpointId()
            + ", key groups "
            + files.range().startKeyGroup()
            + "-"
            + files.range().endKeyGroup()
            + ", "
            + Sizes.format(files.stateSize())
            + ": "
            + files.sharedFiles().size()
            + " SST files ("
            + Sizes.format(shared)
            + "), "
            + files.privateFiles().size()
            + " other files ("
            + Sizes.format(own)
            + ")");
    for (IncrementalKeyedStateHandle.SharedFile f : files.sharedFiles()) {
      out.println(
          "    " + f.localName() + " " + Sizes.format(f.handle().size()) + " " + where(f.handle()));
    }
    for (IncrementalKeyedStateHandle.PrivateFile f : files.privateFiles()) {
      out.println(
          "    " + f.localName() + " " + Sizes.format(f.handle().size()) + " " + where(f.handle()));
    }
    try {
      byte[] meta = storage.readState(files.metaData());
      printHeader(
          HeapSnapshotStrategy.readHeader(new DataInputDeserializer(meta), loader, operatorName),
          out);
    } catch (IOException | RuntimeException | LinkageError e) {
      out.println(
          "    (cannot read its state names: "
              + WeirCli.describe(e)
              + CanonicalKeyedState.classpathHint(e)
              + ")");
    }
    out.println("    (sizes per key group are known only for the canonical format)");
  }

  private static void printOperatorState(
      String prefix, OperatorStateHandle handle, CheckpointStateReader storage, PrintWriter out) {
    byte[] data = null;
    String unreadable = null;
    try {
      data = storage.readState(handle.data());
    } catch (IOException e) {
      unreadable = e.getMessage();
    }
    for (Map.Entry<String, OperatorStateHandle.StateMetaInfo> e : handle.states().entrySet()) {
      String name = e.getKey();
      long[] offsets = e.getValue().offsets();
      out.println(
          prefix
              + ": operator state '"
              + name
              + "' "
              + e.getValue().mode()
              + ", "
              + offsets.length
              + (offsets.length == 1 ? " element" : " elements")
              + bytes(data, offsets));
    }
    if (unreadable != null) {
      out.println("    (cannot read its operator state: " + unreadable + ")");
    }
  }

  /** One line per channel whose in-flight data the subtask recorded. */
  private static void printChannelState(
      String prefix, OperatorSubtaskState subtask, CheckpointStateReader storage, PrintWriter out) {
    for (ChannelStateHandle channel : subtask.channelState()) {
      byte[] data = null;
      String unreadable = null;
      try {
        data = storage.readState(channel.data());
      } catch (IOException e) {
        unreadable = e.getMessage();
      }
      int entries = channel.offsets().length;
      out.println(
          prefix
              + ": channel state (in-flight data) of "
              + channel.channelDescription()
              + ", "
              + entries
              + (entries == 1 ? " buffer" : " buffers")
              + bytes(data, channel.offsets())
              + " "
              + where(channel.data()));
      if (unreadable != null) {
        out.println("    (cannot read it: " + unreadable + ")");
      }
    }
  }

  private static void printSplits(
      String prefix, SourceSplitsHandle splits, CheckpointStateReader storage, PrintWriter out) {
    int splitCount = splits.splits().length;
    int watermarkCount = splits.watermarks().length;
    byte[] data = null;
    String unreadable = null;
    try {
      data = storage.readState(splits.data());
      // Checkpoints of format 3 and older keep split watermarks among the splits.
      SerializedSplits read =
          SerializedSplits.read(
              elements(data, splits.splits()), elements(data, splits.watermarks()));
      splitCount = read.splits().size();
      watermarkCount = read.watermarks().size();
    } catch (IOException | RuntimeException e) {
      unreadable = e.getMessage();
    }
    long[] all = new long[splits.splits().length + splits.watermarks().length];
    System.arraycopy(splits.splits(), 0, all, 0, splits.splits().length);
    System.arraycopy(
        splits.watermarks(), 0, all, splits.splits().length, splits.watermarks().length);
    out.println(
        prefix
            + ": source splits, "
            + splitCount
            + (splitCount == 1 ? " split, " : " splits, ")
            + watermarkCount
            + (watermarkCount == 1 ? " split watermark" : " split watermarks")
            + bytes(data, all)
            + " "
            + where(splits.data()));
    if (unreadable != null) {
      out.println("    (cannot read them: " + unreadable + ")");
    }
  }

  /** The elements at {@code offsets} of {@code data}, each a 4-byte length and its bytes. */
  private static List<byte[]> elements(byte[] data, long[] offsets) throws IOException {
    List<byte[]> elements = new ArrayList<>(offsets.length);
    for (long offset : offsets) {
      if (offset < 0 || offset + 4 > data.length) {
        throw new IOException("an element starts outside its " + data.length + " bytes");
      }
      int length = elementLength(data, offset);
      if (length < 0 || offset + 4 + length > data.length) {
        throw new IOException("an element ends outside its " + data.length + " bytes");
      }
      elements.add(Arrays.copyOfRange(data, (int) offset + 4, (int) offset + 4 + length));
    }
    return elements;
  }

  /** ", <size>" of the elements at {@code offsets}, or why not; "" when unread. */
  private static String bytes(byte[] data, long[] offsets) {
    if (data == null) {
      return "";
    }
    long total = 0;
    boolean inside = true;
    for (long offset : offsets) {
      inside &= offset >= 0 && offset + 4 <= data.length;
      total += inside ? 4 + elementLength(data, offset) : 0;
    }
    return inside
        ? ", " + Sizes.format(total)
        : ", offsets outside its " + data.length + " bytes (weir verify tells more)";
  }

  private static int elementLength(byte[] data, long offset) {
    int o = (int) offset;
    return ((data[o] & 0xff) << 24)
        | ((data[o + 1] & 0xff) << 16)
        | ((data[o + 2] & 0xff) << 8)
        | (data[o + 3] & 0xff);
  }

  private static String where(StreamStateHandle handle) {
    return handle instanceof StreamStateHandle.File f
        ? "(file " + f.relativePath() + ")"
        : "(inline in _metadata)";
  }
}
