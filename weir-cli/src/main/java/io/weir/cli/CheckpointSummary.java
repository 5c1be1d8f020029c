package io.weir.cli;

import io.weir.api.typeutils.DataInputDeserializer;
import io.weir.runtime.checkpoint.CompletedCheckpoint;
import io.weir.runtime.checkpoint.IncrementalKeyedStateHandle;
import io.weir.runtime.checkpoint.KeyGroupsStateHandle;
import io.weir.runtime.checkpoint.OperatorState;
import io.weir.runtime.checkpoint.OperatorStateHandle;
import io.weir.runtime.checkpoint.OperatorSubtaskState;
import io.weir.runtime.state.HeapSnapshotStrategy;
import io.weir.runtime.storage.CheckpointStateReader;
import io.weir.runtime.storage.RetainedCheckpoint;
import io.weir.runtime.storage.StreamStateHandle;
import io.weir.runtime.task.SourceStreamTask;
import io.weir.runtime.task.TaskCheckpointing;
import java.io.IOException;
import java.io.PrintWriter;
import java.time.Instant;
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
        if (subtask.keyed() == null && subtask.operator() == null) {
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
      String kind =
          name.startsWith(TaskCheckpointing.CHANNEL_STATE_PREFIX)
              ? "channel state (in-flight data)"
              : name.equals(SourceStreamTask.SPLITS_STATE) ? "source splits" : "operator state";
      String bytes = "";
      if (data != null) {
        long total = 0;
        boolean inside = true;
        for (long offset : offsets) {
          inside &= offset >= 0 && offset + 4 <= data.length;
          total += inside ? 4 + elementLength(data, offset) : 0;
        }
        bytes =
            inside
                ? ", " + Sizes.format(total)
                : ", offsets outside its " + data.length + " bytes (weir verify tells more)";
      }
      out.println(
          prefix
              + ": "
              + kind
              + " '"
              + name
              + "' "
              + e.getValue().mode()
              + ", "
              + offsets.length
              + (offsets.length == 1 ? " element" : " elements")
              + bytes);
    }
    if (unreadable != null) {
      out.println("    (cannot read its operator state: " + unreadable + ")");
    }
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
