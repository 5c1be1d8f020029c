package io.weir.runtime.storage;

import io.weir.runtime.checkpoint.ChannelStateHandle;
import io.weir.runtime.checkpoint.IncrementalKeyedStateHandle;
import io.weir.runtime.checkpoint.InputChannelStateHandle;
import io.weir.runtime.checkpoint.KeyGroupsStateHandle;
import io.weir.runtime.checkpoint.OperatorSubtaskState;
import io.weir.runtime.checkpoint.ResultSubpartitionInfo;
import io.weir.runtime.checkpoint.ResultSubpartitionStateHandle;
import io.weir.runtime.checkpoint.StateElement;
import io.weir.runtime.checkpoint.TaskRestore;
import io.weir.runtime.state.DefaultOperatorStateStore;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The state handles of control messages between processes, in the same binary format as checkpoint
 * metadata ({@link MetadataSerializer}): a subtask's acknowledged operator states, and a subtask's
 * {@link TaskRestore} without its storage (the receiver turns the storage's description back into a
 * storage). Handles only; state bytes travel only when they are inline (JobManager storage).
 */
public final class DeploymentSerializer {

  private DeploymentSerializer() {}

  /** The operator states of one acknowledgement, by operator id. */
  public static byte[] serializeStates(Map<String, OperatorSubtaskState> states) {
    return write(
        out -> {
          out.writeInt(states.size());
          for (Map.Entry<String, OperatorSubtaskState> e : states.entrySet()) {
            MetadataSerializer.writeString(out, e.getKey());
            MetadataSerializer.writeSubtask(out, e.getValue());
            // The metadata format drops whether a shared file was reused; the registry needs it.
            if (e.getValue().keyed() instanceof IncrementalKeyedStateHandle inc) {
              for (IncrementalKeyedStateHandle.SharedFile file : inc.sharedFiles()) {
                out.writeBoolean(file.reused());
              }
            }
          }
        });
  }

  /** The inverse of {@link #serializeStates}. */
  public static Map<String, OperatorSubtaskState> deserializeStates(byte[] bytes)
      throws IOException {
    DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes));
    int count = MetadataSerializer.readCount(in, "operator states");
    Map<String, OperatorSubtaskState> states = new LinkedHashMap<>();
    for (int i = 0; i < count; i++) {
      String id = MetadataSerializer.readString(in);
      OperatorSubtaskState state = MetadataSerializer.readSubtask(in);
      if (state.keyed() instanceof IncrementalKeyedStateHandle inc) {
        List<IncrementalKeyedStateHandle.SharedFile> files = new ArrayList<>();
        for (IncrementalKeyedStateHandle.SharedFile file : inc.sharedFiles()) {
          files.add(
              new IncrementalKeyedStateHandle.SharedFile(
                  file.localName(), file.handle(), in.readBoolean()));
        }
        state = state.withKeyed(inc.withSharedFiles(files));
      }
      states.put(id, state);
    }
    return states;
  }

  /** {@code restore} without its storage. */
  public static byte[] serializeRestore(TaskRestore restore) {
    return write(
        out -> {
          out.writeLong(restore.checkpointId());
          out.writeBoolean(restore.claimed());
          out.writeInt(restore.operators().size());
          for (Map.Entry<String, TaskRestore.OperatorRestore> e : restore.operators().entrySet()) {
            MetadataSerializer.writeString(out, e.getKey());
            TaskRestore.OperatorRestore op = e.getValue();
            out.writeInt(op.keyed().size());
            for (KeyGroupsStateHandle h : op.keyed()) {
              MetadataSerializer.writeSubtask(out, new OperatorSubtaskState(h, null, false));
            }
            out.writeInt(op.incremental().size());
            for (IncrementalKeyedStateHandle h : op.incremental()) {
              MetadataSerializer.writeSubtask(out, new OperatorSubtaskState(h, null, false));
            }
            out.writeInt(op.lists().size());
            for (Map.Entry<String, TaskRestore.AssignedList> list : op.lists().entrySet()) {
              MetadataSerializer.writeString(out, list.getKey());
              out.writeInt(list.getValue().mode().ordinal());
              writeElements(out, list.getValue().elements());
              byte[] snapshot = list.getValue().serializerSnapshot();
              out.writeBoolean(snapshot != null);
              if (snapshot != null) {
                out.writeInt(snapshot.length);
                out.write(snapshot);
              }
            }
          }
          out.writeInt(restore.inputChannelState().size());
          for (InputChannelStateHandle h : restore.inputChannelState()) {
            out.writeInt(h.channel());
            writeEntries(out, h);
          }
          out.writeInt(restore.resultSubpartitionState().size());
          for (ResultSubpartitionStateHandle h : restore.resultSubpartitionState()) {
            out.writeInt(h.subpartition().edgeId());
            out.writeInt(h.subpartition().subpartition());
            writeEntries(out, h);
          }
          writeElements(out, restore.splits().splits());
          writeElements(out, restore.splits().watermarks());
        });
  }

  /** The inverse of {@link #serializeRestore}, reading through {@code storage}. */
  public static TaskRestore deserializeRestore(byte[] bytes, CheckpointStateReader storage)
      throws IOException {
    DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes));
    long checkpointId = in.readLong();
    boolean claimed = in.readBoolean();
    int operatorCount = MetadataSerializer.readCount(in, "operators");
    Map<String, TaskRestore.OperatorRestore> operators = new LinkedHashMap<>();
    for (int i = 0; i < operatorCount; i++) {
      String id = MetadataSerializer.readString(in);
      List<KeyGroupsStateHandle> keyed = new ArrayList<>();
      int keyedCount = MetadataSerializer.readCount(in, "keyed handles");
      for (int k = 0; k < keyedCount; k++) {
        keyed.add((KeyGroupsStateHandle) MetadataSerializer.readSubtask(in).keyed());
      }
      List<IncrementalKeyedStateHandle> incremental = new ArrayList<>();
      int incrementalCount = MetadataSerializer.readCount(in, "incremental handles");
      for (int k = 0; k < incrementalCount; k++) {
        incremental.add((IncrementalKeyedStateHandle) MetadataSerializer.readSubtask(in).keyed());
      }
      Map<String, TaskRestore.AssignedList> lists = new LinkedHashMap<>();
      int listCount = MetadataSerializer.readCount(in, "list states");
      for (int k = 0; k < listCount; k++) {
        String name = MetadataSerializer.readString(in);
        DefaultOperatorStateStore.Mode mode = DefaultOperatorStateStore.Mode.values()[in.readInt()];
        List<StateElement> elements = readElements(in);
        byte[] snapshot = null;
        if (in.readBoolean()) {
          snapshot = new byte[MetadataSerializer.readCount(in, "snapshot bytes")];
          in.readFully(snapshot);
        }
        lists.put(name, new TaskRestore.AssignedList(mode, elements, snapshot));
      }
      operators.put(id, new TaskRestore.OperatorRestore(keyed, incremental, lists));
    }
    // Channels of one stream share one handle object: the task reads each stream once.
    Map<StreamStateHandle, StreamStateHandle> streams = new LinkedHashMap<>();
    int inputCount = MetadataSerializer.readCount(in, "input channel states");
    List<InputChannelStateHandle> inputs = new ArrayList<>(inputCount);
    for (int i = 0; i < inputCount; i++) {
      int channel = in.readInt();
      StreamStateHandle data = canonical(streams, MetadataSerializer.readHandle(in));
      inputs.add(new InputChannelStateHandle(channel, data, readOffsets(in)));
    }
    int outputCount = MetadataSerializer.readCount(in, "output channel states");
    List<ResultSubpartitionStateHandle> outputs = new ArrayList<>(outputCount);
    for (int i = 0; i < outputCount; i++) {
      ResultSubpartitionInfo info = new ResultSubpartitionInfo(in.readInt(), in.readInt());
      StreamStateHandle data = canonical(streams, MetadataSerializer.readHandle(in));
      outputs.add(new ResultSubpartitionStateHandle(info, data, readOffsets(in)));
    }
    TaskRestore.AssignedSplits splits =
        new TaskRestore.AssignedSplits(readElements(in), readElements(in));
    return new TaskRestore(checkpointId, storage, claimed, operators, inputs, outputs, splits);
  }

  private static void writeEntries(DataOutputStream out, ChannelStateHandle handle)
      throws IOException {
    MetadataSerializer.writeHandle(out, handle.data());
    out.writeInt(handle.offsets().length);
    for (long offset : handle.offsets()) {
      out.writeLong(offset);
    }
  }

  private static long[] readOffsets(DataInputStream in) throws IOException {
    long[] offsets = new long[MetadataSerializer.readCount(in, "offsets")];
    for (int i = 0; i < offsets.length; i++) {
      offsets[i] = in.readLong();
    }
    return offsets;
  }

  private static StreamStateHandle canonical(
      Map<StreamStateHandle, StreamStateHandle> streams, StreamStateHandle handle) {
    return streams.computeIfAbsent(handle, h -> h);
  }

  private static void writeElements(DataOutputStream out, List<StateElement> elements)
      throws IOException {
    out.writeInt(elements.size());
    for (StateElement element : elements) {
      if (element instanceof StateElement.Inline inline) {
        out.writeByte(0);
        out.writeInt(inline.bytes().length);
        out.write(inline.bytes());
      } else {
        StateElement.Stored stored = (StateElement.Stored) element;
        out.writeByte(1);
        MetadataSerializer.writeHandle(out, stored.data());
        out.writeLong(stored.offset());
      }
    }
  }

  private static List<StateElement> readElements(DataInputStream in) throws IOException {
    int count = MetadataSerializer.readCount(in, "state elements");
    List<StateElement> elements = new ArrayList<>(count);
    // Elements of one stream share one handle object: the task reads each stream once.
    Map<StreamStateHandle, StreamStateHandle> handles = new LinkedHashMap<>();
    for (int i = 0; i < count; i++) {
      byte tag = in.readByte();
      if (tag == 0) {
        byte[] bytes = new byte[MetadataSerializer.readCount(in, "element bytes")];
        in.readFully(bytes);
        elements.add(new StateElement.Inline(bytes));
      } else if (tag == 1) {
        StreamStateHandle handle = MetadataSerializer.readHandle(in);
        handle = handles.computeIfAbsent(handle, h -> h);
        elements.add(new StateElement.Stored(handle, in.readLong()));
      } else {
        throw new IOException("unknown state element tag " + tag);
      }
    }
    return elements;
  }

  /** Writes a message body. */
  private interface Body {
    void write(DataOutputStream out) throws IOException;
  }

  private static byte[] write(Body body) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      body.write(out);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot encode state handles", e);
    }
    return bytes.toByteArray();
  }
}
