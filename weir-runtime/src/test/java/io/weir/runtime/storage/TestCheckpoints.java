package io.weir.runtime.storage;

import io.weir.runtime.checkpoint.CompletedCheckpoint;
import io.weir.runtime.checkpoint.KeyGroupsStateHandle;
import io.weir.runtime.checkpoint.OperatorState;
import io.weir.runtime.checkpoint.OperatorStateHandle;
import io.weir.runtime.checkpoint.OperatorSubtaskState;
import io.weir.runtime.state.DefaultOperatorStateStore.Mode;
import io.weir.runtime.state.KeyGroupRange;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/** Checkpoints shaped like a real job's, with state written through a storage. */
final class TestCheckpoints {

  static final String JOB_ID = "0123456789abcdef0123456789abcdef";

  private TestCheckpoints() {}

  /** Deterministic bytes of a given size. */
  static byte[] bytes(int size, long seed) {
    byte[] data = new byte[size];
    new Random(seed).nextBytes(data);
    return data;
  }

  /**
   * Checkpoint {@code id} of a source (operator state) and a keyed counter (keyed state) of
   * parallelism 2, whose second subtask has finished. State sizes straddle {@code smallAndLarge}.
   */
  static CompletedCheckpoint write(CheckpointStateWriter storage, long id, int small, int large)
      throws IOException {
    List<OperatorSubtaskState> sourceSubtasks = new ArrayList<>();
    List<OperatorSubtaskState> counterSubtasks = new ArrayList<>();
    for (int subtask = 0; subtask < 2; subtask++) {
      Map<String, OperatorStateHandle.StateMetaInfo> states = new LinkedHashMap<>();
      states.put("splits", new OperatorStateHandle.StateMetaInfo(Mode.SPLIT, new long[] {0, 4}));
      states.put("union", new OperatorStateHandle.StateMetaInfo(Mode.UNION, new long[] {8}));
      sourceSubtasks.add(
          new OperatorSubtaskState(
              null,
              new OperatorStateHandle(
                  states,
                  storage.writeState(
                      id, bytes(small, id * 10 + subtask), "source[" + subtask + "] splits")),
              false));
      KeyGroupRange range = KeyGroupRange.of(subtask * 64, subtask * 64 + 63);
      counterSubtasks.add(
          new OperatorSubtaskState(
              new KeyGroupsStateHandle(
                  range,
                  new long[] {0, 17, 33},
                  storage.writeState(
                      id, bytes(large, id * 100 + subtask), "counter[" + subtask + "] keyed")),
              null,
              subtask == 1));
    }
    return new CompletedCheckpoint(
        JOB_ID,
        id,
        1_700_000_000_000L + id,
        false,
        List.of(
            new OperatorState("src-uid", "Source: orders", 2, 128, sourceSubtasks),
            new OperatorState("counter-uid", "CountPerKey", 2, 128, counterSubtasks)));
  }

  /** Reads back every state of {@code checkpoint} through {@code storage}. */
  static List<byte[]> readAll(CheckpointStateReader storage, CompletedCheckpoint checkpoint)
      throws IOException {
    List<byte[]> all = new ArrayList<>();
    for (OperatorState op : checkpoint.operators()) {
      for (OperatorSubtaskState subtask : op.subtasks()) {
        if (subtask.keyed() != null) {
          all.add(storage.readState(((KeyGroupsStateHandle) subtask.keyed()).data()));
        }
        if (subtask.operator() != null) {
          all.add(storage.readState(subtask.operator().data()));
        }
      }
    }
    return all;
  }

  /** What {@link #write} stored for checkpoint {@code id}, in {@link #readAll} order. */
  static List<byte[]> expected(long id, int small, int large) {
    return List.of(
        bytes(small, id * 10),
        bytes(small, id * 10 + 1),
        bytes(large, id * 100),
        bytes(large, id * 100 + 1));
  }
}
