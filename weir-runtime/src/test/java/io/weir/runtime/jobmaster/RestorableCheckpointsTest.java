package io.weir.runtime.jobmaster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.weir.runtime.checkpoint.CheckpointCoordinator;
import io.weir.runtime.checkpoint.CheckpointCoordinatorContext;
import io.weir.runtime.checkpoint.CheckpointOptions;
import io.weir.runtime.checkpoint.CheckpointSettings;
import io.weir.runtime.checkpoint.CompletedCheckpoint;
import io.weir.runtime.checkpoint.CorruptCheckpointException;
import io.weir.runtime.checkpoint.OperatorState;
import io.weir.runtime.checkpoint.OperatorStateHandle;
import io.weir.runtime.checkpoint.OperatorSubtaskState;
import io.weir.runtime.recovery.RestoreVerifier;
import io.weir.runtime.recovery.TimingOutReads;
import io.weir.runtime.state.DefaultOperatorStateStore;
import io.weir.runtime.storage.FileSystemCheckpointStorage;
import io.weir.runtime.storage.FileSystems;
import io.weir.runtime.storage.RetainedCheckpoint;
import io.weir.runtime.storage.StreamStateHandle;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Which retained checkpoint a restart restores: a read that fails marks nothing (the same
 * checkpoint is tried again), a damaged file marks its checkpoint unrestorable, and only the newest
 * retained checkpoint is claimed, so the databases restored after a fallback start anew.
 */
class RestorableCheckpointsTest {

  static final String JOB = "0000000000000000000000000000000b";
  static final String SCHEME = "flaky-restorable";

  /** Nothing runs: the coordinator only holds the retained checkpoints here. */
  static final CheckpointCoordinatorContext IDLE =
      new CheckpointCoordinatorContext() {
        @Override
        public long currentTimeMillis() {
          return 0;
        }

        @Override
        public Runnable schedule(Runnable action, long delayMillis) {
          return () -> {};
        }

        @Override
        public void triggerSources(long checkpointId, long timestamp, CheckpointOptions options) {}

        @Override
        public void notifyComplete(long checkpointId) {}

        @Override
        public void notifyAborted(long checkpointId) {}

        @Override
        public void failJob(Throwable cause) {}
      };

  @TempDir Path dir;
  final TimingOutReads fs = new TimingOutReads(SCHEME);
  FileSystemCheckpointStorage storage;
  RestoreVerifier verifier;
  StreamStateHandle.File newestFile;
  RestorableCheckpoints restorable;

  @BeforeEach
  void retainTwo() throws IOException {
    FileSystems.register(SCHEME, fs);
    storage = new FileSystemCheckpointStorage(URI.create(SCHEME + "://" + dir), JOB, 0);
    CompletedCheckpoint older = checkpoint(4);
    CompletedCheckpoint newest = checkpoint(5);
    newestFile =
        (StreamStateHandle.File) newest.operators().get(0).subtasks().get(0).operator().data();
    CheckpointCoordinator coordinator =
        new CheckpointCoordinator(
            JOB,
            new CheckpointSettings(1000, 1000, 0, 1, 0, 2),
            List.of(new CheckpointCoordinator.OperatorInfo("op", "counter", 0, 1, 128)),
            storage,
            IDLE,
            5,
            List.of(newest, older));
    verifier = new RestoreVerifier(Map.of("op", "counter"), TimingOutReads.NO_KEYED_STATE);
    restorable = new RestorableCheckpoints("job", coordinator, storage, verifier, null);
  }

  @AfterEach
  void close() {
    verifier.close();
    FileSystems.unregister(SCHEME);
  }

  CompletedCheckpoint checkpoint(long id) throws IOException {
    StreamStateHandle data = storage.writeState(id, new byte[] {0, 0, 0, 1, (byte) id}, "list");
    OperatorStateHandle lists =
        new OperatorStateHandle(
            Map.of(
                "list",
                new OperatorStateHandle.StateMetaInfo(
                    DefaultOperatorStateStore.Mode.SPLIT, new long[] {0})),
            data);
    return new CompletedCheckpoint(
        JOB,
        id,
        1000 + id,
        false,
        List.of(
            new OperatorState(
                "op", "counter", 1, 128, List.of(new OperatorSubtaskState(null, lists, false)))));
  }

  @Test
  void aReadThatTimesOutMarksNothingAndTheNextRestartTakesTheSameCheckpoint() throws Exception {
    String slow = newestFile.relativePath();
    fs.timeOut(path -> path.endsWith(slow));
    Throwable failed = catchThrowable(restorable::newest);

    assertThat(failed)
        .as("a failed read is no reason to fall back to checkpoint 4")
        .isInstanceOf(IOException.class)
        .isNotInstanceOf(CorruptCheckpointException.class)
        .hasMessageContaining("Checkpoint 5");

    fs.answer();
    RetainedCheckpoint restored = restorable.newest();
    assertThat(restored.checkpoint().checkpointId()).isEqualTo(5);
    assertThat(restorable.claims(restored)).isTrue();
  }

  @Test
  void aDamagedFileFallsBackAndTheOlderCheckpointIsNotClaimed() throws Exception {
    Files.delete(dir.resolve(JOB).resolve(newestFile.relativePath()));

    RetainedCheckpoint restored = restorable.newest();

    assertThat(restored.checkpoint().checkpointId()).isEqualTo(4);
    // Checkpoint 5 stays retained, its shared files registered: databases that went on under their
    // ids from checkpoint 4 would write files again under 5's names, and the registry would take
    // them for duplicates of 5's.
    assertThat(restorable.claims(restored)).isFalse();
    assertThat(restorable.newest().checkpoint().checkpointId())
        .as("checkpoint 5 is not tried again")
        .isEqualTo(4);
  }
}
