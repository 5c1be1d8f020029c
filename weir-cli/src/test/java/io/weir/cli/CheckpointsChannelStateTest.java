package io.weir.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.weir.runtime.checkpoint.CompletedCheckpoint;
import io.weir.runtime.checkpoint.OperatorState;
import io.weir.runtime.checkpoint.OperatorStateHandle;
import io.weir.runtime.checkpoint.OperatorSubtaskState;
import io.weir.runtime.state.DefaultOperatorStateStore;
import io.weir.runtime.storage.FileSystemCheckpointStorage;
import io.weir.runtime.storage.StreamStateHandle;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * In-flight data of an unaligned checkpoint, written through the runtime's storage as a task writes
 * it: whether a running job records any depends on timing, so this checkpoint is built directly.
 */
class CheckpointsChannelStateTest {

  private static final String JOB = "c".repeat(32);

  @TempDir Path base;

  @Test
  void channelStateIsShownAndMarksTheCheckpointUnaligned() throws Exception {
    FileSystemCheckpointStorage storage = new FileSystemCheckpointStorage(base.toUri(), JOB, 0);
    // Two buffers of 8 and 3 bytes, each an int length and its bytes.
    byte[] data =
        ByteBuffer.allocate(4 + 8 + 4 + 3).putInt(8).putLong(42).putInt(3).put(new byte[3]).array();
    StreamStateHandle handle = storage.writeState(5, data, "channel state of map");
    OperatorStateHandle channels =
        new OperatorStateHandle(
            Map.of(
                "_channel_in_0",
                new OperatorStateHandle.StateMetaInfo(
                    DefaultOperatorStateStore.Mode.SPLIT, new long[] {0, 12})),
            handle);
    storage.commitCheckpoint(
        new CompletedCheckpoint(
            JOB,
            5,
            System.currentTimeMillis(),
            false,
            List.of(
                new OperatorState(
                    "map",
                    "Map",
                    1,
                    128,
                    List.of(new OperatorSubtaskState(null, channels, false))))));
    Path jobDir = base.resolve(JOB);

    Cli.Result table = Cli.run("checkpoints", jobDir.toString());
    Cli.Result inspect = Cli.run("inspect", jobDir.resolve("chk-5").toString());

    assertThat(table.exitCode()).as(table.toString()).isZero();
    assertThat(table.out().lines().toList().get(1)).matches("5 .* 1 +yes +yes");
    assertThat(inspect.exitCode()).as(inspect.toString()).isZero();
    assertThat(inspect.out())
        .contains(
            "subtask 0: channel state (in-flight data) '_channel_in_0' SPLIT, 2 elements, 19 B");
  }
}
