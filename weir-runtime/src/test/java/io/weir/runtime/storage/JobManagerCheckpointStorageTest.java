package io.weir.runtime.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.weir.runtime.checkpoint.CompletedCheckpoint;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class JobManagerCheckpointStorageTest {

  @Test
  void stateUpToFiveMebibytesIsKeptInlineAndReadBack() throws IOException {
    JobManagerCheckpointStorage storage = new JobManagerCheckpointStorage();
    byte[] data = TestCheckpoints.bytes(5 << 20, 1);

    StreamStateHandle handle = storage.writeState(1, data, "counter[0] keyed");

    assertThat(handle).isInstanceOf(StreamStateHandle.Inline.class);
    assertThat(storage.readState(handle)).isEqualTo(data);
  }

  @Test
  void stateAboveTheLimitIsRefusedSayingWhatToDo() {
    JobManagerCheckpointStorage storage = new JobManagerCheckpointStorage();
    byte[] data = new byte[(5 << 20) + 1];

    assertThatThrownBy(() -> storage.writeState(3, data, "operator 'CountPerKey', keyed state"))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("operator 'CountPerKey', keyed state")
        .hasMessageContaining("5242881 bytes (5.0 MiB)")
        .hasMessageContaining("more than the 5 mb")
        .hasMessageContaining("execution.checkpointing.storage: filesystem")
        .hasMessageContaining("execution.checkpointing.dir")
        .hasMessageContaining("raise the limit");
  }

  @Test
  void theLimitCanBeChosen() throws IOException {
    JobManagerCheckpointStorage storage = new JobManagerCheckpointStorage(1024);

    storage.writeState(1, new byte[1024], "small");
    assertThatThrownBy(() -> storage.writeState(1, new byte[1025], "large"))
        .hasMessageContaining("more than the 1 kb");
  }

  @Test
  void corruptInlineStateAndFileHandlesAreRefusedOnRead() {
    JobManagerCheckpointStorage storage = new JobManagerCheckpointStorage();

    assertThatThrownBy(() -> storage.readState(new StreamStateHandle.Inline(new byte[] {1}, 7)))
        .hasMessageContaining("checksum mismatch");
    assertThatThrownBy(() -> storage.readState(new StreamStateHandle.File("chk-1/x", 1, 0)))
        .hasMessageContaining("holds state in memory only");
  }

  @Test
  void completedCheckpointsAreKeptNewestFirstUntilDiscarded() throws IOException {
    JobManagerCheckpointStorage storage = new JobManagerCheckpointStorage();
    for (long id : new long[] {2, 10, 1}) {
      assertThat(storage.commitCheckpoint(TestCheckpoints.write(storage, id, 10, 100)))
          .isEqualTo("jobmanager:chk-" + id);
    }

    List<String> problems = new ArrayList<>();
    List<CompletedCheckpoint> retained = storage.loadRetained(problems);
    assertThat(retained).extracting(CompletedCheckpoint::checkpointId).containsExactly(10L, 2L, 1L);
    assertThat(problems).isEmpty();
    assertThat(TestCheckpoints.readAll(storage, retained.get(0)))
        .containsExactlyElementsOf(TestCheckpoints.expected(10, 10, 100));

    storage.discardCheckpoint(10);
    assertThat(storage.loadRetained(problems))
        .extracting(CompletedCheckpoint::checkpointId)
        .containsExactly(2L, 1L);
  }
}
