package io.weir.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.weir.runtime.checkpoint.CompletedCheckpoint;
import io.weir.runtime.checkpoint.InputChannelStateHandle;
import io.weir.runtime.checkpoint.OperatorState;
import io.weir.runtime.checkpoint.OperatorStateHandle;
import io.weir.runtime.checkpoint.OperatorSubtaskState;
import io.weir.runtime.checkpoint.ResultSubpartitionInfo;
import io.weir.runtime.checkpoint.ResultSubpartitionStateHandle;
import io.weir.runtime.state.DefaultOperatorStateStore;
import io.weir.runtime.storage.FileSystemCheckpointStorage;
import io.weir.runtime.storage.MetadataSerializer;
import io.weir.runtime.storage.StreamStateHandle;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.CRC32;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * In-flight data of an unaligned checkpoint, written through the runtime's storage as a task writes
 * it: whether a running job records any depends on timing, so this checkpoint is built directly;
 * and the same kept by name among a head operator's lists, as metadata format 3 had it.
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
    OperatorSubtaskState subtask =
        new OperatorSubtaskState(
            null,
            null,
            List.of(new InputChannelStateHandle(0, handle, new long[] {0, 12})),
            List.of(
                new ResultSubpartitionStateHandle(
                    new ResultSubpartitionInfo(3, 1), handle, new long[] {12})),
            null,
            false,
            null);
    storage.commitCheckpoint(checkpoint(subtask));
    Path jobDir = base.resolve(JOB);

    Cli.Result table = Cli.run("checkpoints", jobDir.toString());
    Cli.Result inspect = Cli.run("inspect", jobDir.resolve("chk-5").toString());

    assertThat(table.exitCode()).as(table.toString()).isZero();
    assertThat(table.out().lines().toList().get(1)).matches("5 .* 1 +yes +yes");
    assertThat(inspect.exitCode()).as(inspect.toString()).isZero();
    assertThat(inspect.out())
        .contains(
            "subtask 0: channel state (in-flight data) of input channel 0, 2 buffers, 19 B"
                + " (file chk-5/")
        .contains(
            "subtask 0: channel state (in-flight data) of output edge 3 channel 1, 1 buffer, 7 B");
  }

  @Test
  void aFormat3CheckpointShowsItsNamedListsByType() throws Exception {
    FileSystemCheckpointStorage storage = new FileSystemCheckpointStorage(base.toUri(), JOB, 0);
    // An 8-byte buffer of gate channel 1, a split of version 2, a split watermark (format 3 marked
    // it by version Integer.MIN_VALUE among the splits).
    byte[] data =
        ByteBuffer.allocate(12 + 9 + 9)
            .putInt(8)
            .putLong(42)
            .putInt(5)
            .putInt(2)
            .put((byte) 7)
            .putInt(5)
            .putInt(Integer.MIN_VALUE)
            .put((byte) 9)
            .array();
    StreamStateHandle handle = storage.writeState(5, data, "operator state of a source");
    Map<String, OperatorStateHandle.StateMetaInfo> lists = new LinkedHashMap<>();
    lists.put(
        "_channel_in_1",
        new OperatorStateHandle.StateMetaInfo(
            DefaultOperatorStateStore.Mode.SPLIT, new long[] {0}));
    lists.put(
        "_source_splits",
        new OperatorStateHandle.StateMetaInfo(
            DefaultOperatorStateStore.Mode.SPLIT, new long[] {12, 21}));
    byte[] v4 =
        MetadataSerializer.serialize(
            checkpoint(
                new OperatorSubtaskState(null, new OperatorStateHandle(lists, handle), false)));
    // Format 4 writes named lists as format 3 did; only the version differs.
    byte[] v3 = Arrays.copyOf(v4, v4.length);
    ByteBuffer.wrap(v3).putInt(4, 3);
    CRC32 crc = new CRC32();
    crc.update(v3, 0, v3.length - 4);
    ByteBuffer.wrap(v3).putInt(v3.length - 4, (int) crc.getValue());
    Path chk = base.resolve(JOB).resolve("chk-5");
    Files.createDirectories(chk);
    Files.write(chk.resolve("_metadata"), v3);

    Cli.Result table = Cli.run("checkpoints", base.resolve(JOB).toString());
    Cli.Result inspect = Cli.run("inspect", chk.toString());

    assertThat(table.exitCode()).as(table.toString()).isZero();
    assertThat(table.out().lines().toList().get(1)).matches("5 .* 1 +yes +yes");
    assertThat(inspect.exitCode()).as(inspect.toString()).isZero();
    assertThat(inspect.out())
        .contains("subtask 0: channel state (in-flight data) of input channel 1, 1 buffer, 12 B")
        .contains("subtask 0: source splits, 1 split, 1 split watermark, 18 B")
        .doesNotContain("operator state");
  }

  private static CompletedCheckpoint checkpoint(OperatorSubtaskState subtask) {
    return new CompletedCheckpoint(
        JOB,
        5,
        System.currentTimeMillis(),
        false,
        List.of(new OperatorState("map", "Map", 1, 128, List.of(subtask))));
  }
}
