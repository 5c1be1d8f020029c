package io.weir.runtime.storage;

import io.weir.runtime.checkpoint.InputChannelStateHandle;
import io.weir.runtime.checkpoint.OperatorStateHandle;
import io.weir.runtime.checkpoint.OperatorSubtaskState;
import io.weir.runtime.checkpoint.ResultSubpartitionInfo;
import io.weir.runtime.checkpoint.ResultSubpartitionStateHandle;
import io.weir.runtime.checkpoint.SourceSplitsHandle;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * How metadata formats 3 and older kept a task's own state: the in-flight data of an unaligned
 * checkpoint and a source's splits were operator lists of the head operator, found by their names
 * ({@code _channel_in_<channel>}, {@code _channel_out_<edge>_<subpartition>}, {@code
 * _source_splits}). {@link MetadataSerializer} reads such a subtask through here, so that nothing
 * past it sees the old layout. Stateless.
 */
final class NamedListsFormat {

  /** Operator-state names of a task's own state in format 3 and older. */
  private static final String V3_INPUT_CHANNEL = "_channel_in_";

  private static final String V3_OUTPUT_CHANNEL = "_channel_out_";
  private static final String V3_SPLITS = "_source_splits";

  private NamedListsFormat() {}

  /**
   * A subtask read from format 3 or older with its task's own state in the typed fields: the
   * operator lists named for in-flight data and splits (see the class comment) become handles into
   * the same stream.
   */
  static OperatorSubtaskState toTypedFields(OperatorSubtaskState subtask) throws IOException {
    OperatorStateHandle operator = subtask.operator();
    if (operator == null) {
      return subtask;
    }
    Map<String, OperatorStateHandle.StateMetaInfo> own = new LinkedHashMap<>();
    List<InputChannelStateHandle> inputs = new ArrayList<>();
    List<ResultSubpartitionStateHandle> outputs = new ArrayList<>();
    SourceSplitsHandle splits = null;
    StreamStateHandle data = operator.data();
    for (Map.Entry<String, OperatorStateHandle.StateMetaInfo> e : operator.states().entrySet()) {
      String name = e.getKey();
      long[] offsets = e.getValue().offsets();
      if (name.startsWith(V3_INPUT_CHANNEL)) {
        inputs.add(
            new InputChannelStateHandle(
                channelNumber(name, name.substring(V3_INPUT_CHANNEL.length())), data, offsets));
      } else if (name.startsWith(V3_OUTPUT_CHANNEL)) {
        String[] parts = name.substring(V3_OUTPUT_CHANNEL.length()).split("_", -1);
        if (parts.length != 2) {
          throw new IOException("unknown channel state '" + name + "'");
        }
        ResultSubpartitionInfo info =
            new ResultSubpartitionInfo(
                channelNumber(name, parts[0]), channelNumber(name, parts[1]));
        outputs.add(new ResultSubpartitionStateHandle(info, data, offsets));
      } else if (name.equals(V3_SPLITS)) {
        // Split watermarks are among the splits, told apart when read (SerializedSplits).
        splits = new SourceSplitsHandle(data, offsets, new long[0]);
      } else {
        own.put(name, e.getValue());
      }
    }
    if (own.size() == operator.states().size()) {
      return subtask;
    }
    return new OperatorSubtaskState(
        subtask.keyed(),
        own.isEmpty() ? null : new OperatorStateHandle(Collections.unmodifiableMap(own), data),
        inputs,
        outputs,
        splits,
        subtask.finished(),
        subtask.schema());
  }

  private static int channelNumber(String name, String number) throws IOException {
    try {
      int n = Integer.parseInt(number);
      if (n >= 0) {
        return n;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new IOException("unknown channel state '" + name + "'");
  }
}
