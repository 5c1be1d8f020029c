package io.weir.runtime.storage;

import static org.assertj.core.api.Assertions.assertThat;

import io.weir.runtime.checkpoint.IncrementalKeyedStateHandle;
import io.weir.runtime.checkpoint.InputChannelStateHandle;
import io.weir.runtime.checkpoint.KeyGroupsStateHandle;
import io.weir.runtime.checkpoint.OperatorStateHandle;
import io.weir.runtime.checkpoint.OperatorSubtaskState;
import io.weir.runtime.checkpoint.ResultSubpartitionInfo;
import io.weir.runtime.checkpoint.ResultSubpartitionStateHandle;
import io.weir.runtime.checkpoint.SourceSplitsHandle;
import io.weir.runtime.checkpoint.StateElement;
import io.weir.runtime.checkpoint.TaskRestore;
import io.weir.runtime.state.DefaultOperatorStateStore;
import io.weir.runtime.state.KeyGroupRange;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Handles of control messages survive their binary round trip, storage aside. */
class DeploymentSerializerTest {

  private static final StreamStateHandle FILE = new StreamStateHandle.File("chk-3/abc", 120, 7);
  private static final StreamStateHandle INLINE =
      new StreamStateHandle.Inline(new byte[] {1, 2}, 9);

  private static IncrementalKeyedStateHandle incremental(boolean reused) {
    return new IncrementalKeyedStateHandle(
        new KeyGroupRange(0, 63),
        "backend-1",
        3,
        INLINE,
        List.of(new IncrementalKeyedStateHandle.SharedFile("000012.sst", FILE, reused)),
        List.of(new IncrementalKeyedStateHandle.PrivateFile("MANIFEST", INLINE)));
  }

  @Test
  void acknowledgedStatesKeepEveryHandleAndWhetherSharedFilesWereReused() throws Exception {
    Map<String, OperatorSubtaskState> states =
        Map.of(
            "count",
            new OperatorSubtaskState(
                new KeyGroupsStateHandle(new KeyGroupRange(0, 3), new long[] {0, 10, 20, 30}, FILE),
                new OperatorStateHandle(
                    Map.of(
                        "splits",
                        new OperatorStateHandle.StateMetaInfo(
                            DefaultOperatorStateStore.Mode.UNION, new long[] {4})),
                    INLINE),
                false),
            "rocks",
            new OperatorSubtaskState(incremental(true), null, true),
            "source",
            new OperatorSubtaskState(
                null,
                null,
                List.of(new InputChannelStateHandle(1, INLINE, new long[] {0, 9})),
                List.of(
                    new ResultSubpartitionStateHandle(
                        new ResultSubpartitionInfo(2, 0), INLINE, new long[] {20})),
                new SourceSplitsHandle(FILE, new long[] {0, 16}, new long[] {40}),
                false,
                null));
    byte[] bytes = DeploymentSerializer.serializeStates(states);
    Map<String, OperatorSubtaskState> back = DeploymentSerializer.deserializeStates(bytes);
    assertThat(DeploymentSerializer.serializeStates(back)).isEqualTo(bytes);
    assertThat(back.get("rocks").finished()).isTrue();
    IncrementalKeyedStateHandle rocks = (IncrementalKeyedStateHandle) back.get("rocks").keyed();
    assertThat(rocks.sharedFiles().get(0).reused()).isTrue();
    assertThat(rocks.sharedFiles().get(0).handle()).isEqualTo(FILE);
    OperatorSubtaskState source = back.get("source");
    assertThat(source.inputChannelState())
        .singleElement()
        .satisfies(
            c -> {
              assertThat(c.channel()).isEqualTo(1);
              assertThat(c.offsets()).containsExactly(0, 9);
            });
    assertThat(source.resultSubpartitionState().get(0).subpartition())
        .isEqualTo(new ResultSubpartitionInfo(2, 0));
    assertThat(source.splits().splits()).containsExactly(0, 16);
    assertThat(source.splits().watermarks()).containsExactly(40);
  }

  @Test
  void aRestoreKeepsItsHandlesAndTakesTheReceiversStorage() throws Exception {
    TaskRestore restore =
        new TaskRestore(
            3,
            null,
            true,
            Map.of(
                "count",
                new TaskRestore.OperatorRestore(
                    List.of(
                        new KeyGroupsStateHandle(new KeyGroupRange(4, 5), new long[] {0, 8}, FILE)),
                    List.of(incremental(false)),
                    Map.of(
                        "buffer",
                        new TaskRestore.AssignedList(
                            DefaultOperatorStateStore.Mode.SPLIT,
                            List.of(
                                new StateElement.Stored(FILE, 0),
                                new StateElement.Stored(FILE, 12)))))),
            List.of(
                new InputChannelStateHandle(0, FILE, new long[] {0}),
                new InputChannelStateHandle(1, FILE, new long[] {7})),
            List.of(
                new ResultSubpartitionStateHandle(
                    new ResultSubpartitionInfo(3, 1), FILE, new long[] {14})),
            new TaskRestore.AssignedSplits(
                List.of(new StateElement.Inline(new byte[] {6, 7})),
                List.of(new StateElement.Stored(FILE, 4))));
    byte[] bytes = DeploymentSerializer.serializeRestore(restore);
    CheckpointStorage storage = new JobManagerCheckpointStorage();
    TaskRestore back = DeploymentSerializer.deserializeRestore(bytes, storage);
    assertThat(back.storage()).isSameAs(storage);
    assertThat(back.checkpointId()).isEqualTo(3);
    assertThat(back.claimed()).isTrue();
    assertThat(DeploymentSerializer.serializeRestore(back)).isEqualTo(bytes);
    List<StateElement> buffer = back.operators().get("count").lists().get("buffer").elements();
    // Elements of one stream share one handle: the task reads the stream once.
    assertThat(((StateElement.Stored) buffer.get(0)).data())
        .isSameAs(((StateElement.Stored) buffer.get(1)).data());
    assertThat(((StateElement.Inline) back.splits().splits().get(0)).bytes()).containsExactly(6, 7);
    assertThat(back.splits().watermarks()).hasSize(1);
    assertThat(back.inputChannelState().get(1).data())
        .as("channels of one stream share one handle")
        .isSameAs(back.inputChannelState().get(0).data())
        .isSameAs(back.resultSubpartitionState().get(0).data());
    assertThat(back.resultSubpartitionState().get(0).subpartition())
        .isEqualTo(new ResultSubpartitionInfo(3, 1));
  }
}
