package io.weir.cli;

import io.weir.runtime.checkpoint.ChannelStateHandle;
import io.weir.runtime.checkpoint.CompletedCheckpoint;
import io.weir.runtime.checkpoint.KeyGroupsStateHandle;
import io.weir.runtime.checkpoint.KeyedStateHandle;
import io.weir.runtime.checkpoint.OperatorState;
import io.weir.runtime.checkpoint.OperatorStateHandle;
import io.weir.runtime.checkpoint.OperatorSubtaskState;
import io.weir.runtime.state.KeyGroupRange;
import io.weir.runtime.storage.StreamStateHandle;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The references inside a checkpoint's metadata that its checksum cannot vouch for, because the
 * writer put them there: each operator has one state per subtask, keyed state covers key groups
 * below the max parallelism without two subtasks sharing one, and every offset points inside the
 * state it indexes. A restore reads state through these, so a wrong one fails it or, worse, reads
 * the wrong bytes. Stateless.
 */
final class MetadataChecks {

  private MetadataChecks() {}

  /** Every problem of {@code checkpoint}'s metadata, one line each; empty if consistent. */
  static List<String> problems(CompletedCheckpoint checkpoint) {
    List<String> problems = new ArrayList<>();
    for (OperatorState op : checkpoint.operators()) {
      String name = "operator '" + op.operatorName() + "' (" + op.operatorId() + ")";
      if (op.subtasks().size() != op.parallelism()) {
        problems.add(
            name
                + ": the metadata holds the state of "
                + op.subtasks().size()
                + " subtasks for parallelism "
                + op.parallelism());
      }
      List<KeyGroupRange> ranges = new ArrayList<>();
      for (int i = 0; i < op.subtasks().size(); i++) {
        OperatorSubtaskState subtask = op.subtasks().get(i);
        String owner = name + " subtask " + i;
        if (subtask.keyed() != null) {
          keyed(owner, subtask.keyed(), op.maxParallelism(), ranges, problems);
        }
        if (subtask.operator() != null) {
          operator(owner, subtask.operator(), problems);
        }
        for (ChannelStateHandle channel : subtask.channelState()) {
          elements(
              owner,
              "in-flight data of " + channel.channelDescription(),
              channel.data(),
              channel.offsets(),
              problems);
        }
        if (subtask.splits() != null) {
          elements(
              owner, "source splits", subtask.splits().data(), subtask.splits().splits(), problems);
          elements(
              owner,
              "split watermarks",
              subtask.splits().data(),
              subtask.splits().watermarks(),
              problems);
        }
      }
    }
    return problems;
  }

  private static void keyed(
      String owner,
      KeyedStateHandle keyed,
      int maxParallelism,
      List<KeyGroupRange> seen,
      List<String> problems) {
    KeyGroupRange range = keyed.range();
    if (range.startKeyGroup() < 0 || range.endKeyGroup() >= maxParallelism) {
      problems.add(
          owner + ": key groups " + text(range) + " lie outside 0-" + (maxParallelism - 1));
    }
    for (KeyGroupRange other : seen) {
      if (range.intersection(other).getNumberOfKeyGroups() > 0) {
        problems.add(
            owner + ": key groups " + text(range) + " overlap another subtask's " + text(other));
      }
    }
    seen.add(range);
    if (keyed instanceof KeyGroupsStateHandle groups) {
      long[] offsets = groups.offsets();
      long size = groups.data().size();
      if (offsets.length != range.getNumberOfKeyGroups()) {
        problems.add(
            owner
                + ": keyed state indexes "
                + offsets.length
                + " key groups, its range "
                + text(range)
                + " has "
                + range.getNumberOfKeyGroups());
      }
      for (int i = 0; i < offsets.length; i++) {
        if (offsets[i] < 0 || offsets[i] > size || (i > 0 && offsets[i] < offsets[i - 1])) {
          problems.add(
              owner
                  + ": keyed state's key group "
                  + (range.startKeyGroup() + i)
                  + " starts at "
                  + offsets[i]
                  + ", outside its "
                  + size
                  + " bytes or before the previous key group");
          break;
        }
      }
    }
  }

  private static String text(KeyGroupRange range) {
    return range.startKeyGroup() + "-" + range.endKeyGroup();
  }

  private static void operator(String owner, OperatorStateHandle handle, List<String> problems) {
    for (Map.Entry<String, OperatorStateHandle.StateMetaInfo> e : handle.states().entrySet()) {
      elements(
          owner,
          "operator state '" + e.getKey() + "'",
          handle.data(),
          e.getValue().offsets(),
          problems);
    }
  }

  /** Each element is a 4-byte length and its bytes: it must start inside its stream. */
  private static void elements(
      String owner, String what, StreamStateHandle data, long[] offsets, List<String> problems) {
    long size = data.size();
    for (long offset : offsets) {
      if (offset < 0 || offset + 4 > size) {
        problems.add(
            owner
                + ": an element of "
                + what
                + " starts at "
                + offset
                + ", outside its "
                + size
                + " bytes");
        break;
      }
    }
  }
}
