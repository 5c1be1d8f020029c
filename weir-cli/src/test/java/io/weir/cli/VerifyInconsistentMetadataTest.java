package io.weir.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.weir.runtime.checkpoint.CompletedCheckpoint;
import io.weir.runtime.checkpoint.KeyGroupsStateHandle;
import io.weir.runtime.checkpoint.OperatorState;
import io.weir.runtime.checkpoint.OperatorStateHandle;
import io.weir.runtime.checkpoint.OperatorSubtaskState;
import io.weir.runtime.state.DefaultOperatorStateStore;
import io.weir.runtime.state.KeyGroupRange;
import io.weir.runtime.storage.FileSystemCheckpointStorage;
import io.weir.runtime.storage.StreamStateHandle;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Metadata whose checksum is intact but whose references are not, as a faulty writer would leave
 * it: written through the runtime's storage, since no working job produces it.
 */
class VerifyInconsistentMetadataTest {

  private static final String JOB = "d".repeat(32);

  @TempDir Path base;

  @Test
  void referencesTheChecksumCannotVouchForAreChecked() throws Exception {
    FileSystemCheckpointStorage storage = new FileSystemCheckpointStorage(base.toUri(), JOB, 0);
    StreamStateHandle keyedData = storage.writeState(9, new byte[40], "keyed state");
    StreamStateHandle operatorData = storage.writeState(9, new byte[8], "operator state");
    OperatorSubtaskState subtask0 =
        new OperatorSubtaskState(
            new KeyGroupsStateHandle(
                new KeyGroupRange(0, 3), new long[] {0, 10, 20, 400}, keyedData),
            new OperatorStateHandle(
                Map.of(
                    "buffer",
                    new OperatorStateHandle.StateMetaInfo(
                        DefaultOperatorStateStore.Mode.SPLIT, new long[] {0, 6})),
                operatorData),
            false);
    OperatorSubtaskState subtask1 =
        new OperatorSubtaskState(
            new KeyGroupsStateHandle(
                new KeyGroupRange(2, 7), new long[] {0, 0, 0, 0, 0, 0}, keyedData),
            null,
            false);
    storage.commitCheckpoint(
        new CompletedCheckpoint(
            JOB,
            9,
            System.currentTimeMillis(),
            false,
            List.of(new OperatorState("agg", "Aggregate", 3, 4, List.of(subtask0, subtask1)))));
    Path chk = base.resolve(JOB).resolve("chk-9");

    Cli.Result verify = Cli.run("verify", chk.toString());
    Cli.Result inspect = Cli.run("inspect", chk.toString());

    assertThat(verify.exitCode()).as(verify.toString()).isEqualTo(1);
    assertThat(verify.out())
        .contains(
            "operator 'Aggregate' (agg): the metadata holds the state of 2 subtasks for"
                + " parallelism 3")
        .contains("subtask 0: keyed state's key group 3 starts at 400, outside its 40 bytes")
        .contains(
            "subtask 0: an element of operator state 'buffer' starts at 6, outside its 8 bytes")
        .contains("subtask 1: key groups 2-7 lie outside 0-3")
        .contains("subtask 1: key groups 2-7 overlap another subtask's 0-3")
        .contains("CANNOT be restored (5 problems)");
    assertThat(inspect.exitCode()).as(inspect.toString()).isZero();
    assertThat(inspect.out())
        .contains("operator state 'buffer' SPLIT, 2 elements, offsets outside");
  }
}
