package io.weir.runtime.recovery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.weir.runtime.checkpoint.CompletedCheckpoint;
import io.weir.runtime.checkpoint.CorruptCheckpointException;
import io.weir.runtime.checkpoint.OperatorState;
import io.weir.runtime.checkpoint.OperatorStateHandle;
import io.weir.runtime.checkpoint.OperatorSubtaskState;
import io.weir.runtime.checkpoint.StateElement;
import io.weir.runtime.checkpoint.TaskRestore;
import io.weir.runtime.state.DefaultOperatorStateStore;
import io.weir.runtime.storage.CompletedCheckpointLocation;
import io.weir.runtime.storage.DamagedStateException;
import io.weir.runtime.storage.FileSystemCheckpointStorage;
import io.weir.runtime.storage.FileSystems;
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
 * A read that fails while a checkpoint is verified or restored (a timeout) says nothing about the
 * checkpoint: it is an ordinary failure, and only a missing file or one that does not match its
 * checksum makes the checkpoint corrupt. Taking a timeout for corruption made the job fall back to
 * an older checkpoint after its sinks had committed the newer one's transactions, which committed
 * records twice (the simulation with read faults, seeds 21 and 41).
 */
class RestoreReadFailuresTest {

  static final String JOB = "00000000000000000000000000000007";
  static final String SCHEME = "flaky-restore";

  @TempDir Path dir;
  final TimingOutReads fs = new TimingOutReads(SCHEME);
  FileSystemCheckpointStorage storage;
  StreamStateHandle.File file;
  CompletedCheckpoint checkpoint;

  @BeforeEach
  void writeCheckpoint() throws IOException {
    FileSystems.register(SCHEME, fs);
    storage = new FileSystemCheckpointStorage(URI.create(SCHEME + "://" + dir), JOB, 0);
    file = (StreamStateHandle.File) storage.writeState(3, new byte[] {0, 0, 0, 1, 42}, "list");
    checkpoint = checkpointWith(3, file);
  }

  @AfterEach
  void unregister() {
    FileSystems.unregister(SCHEME);
  }

  static CompletedCheckpoint checkpointWith(long id, StreamStateHandle data) {
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
        1000,
        false,
        List.of(
            new OperatorState(
                "op", "counter", 1, 128, List.of(new OperatorSubtaskState(null, lists, false)))));
  }

  Path localFile() {
    return dir.resolve(JOB).resolve(file.relativePath());
  }

  RestoreVerifier verifier() {
    return new RestoreVerifier(Map.of("op", "counter"), TimingOutReads.NO_KEYED_STATE);
  }

  TaskRestore restore() {
    return new TaskRestore(
        3,
        storage,
        true,
        Map.of(
            "op",
            new TaskRestore.OperatorRestore(
                List.of(),
                List.of(),
                Map.of(
                    "list",
                    new TaskRestore.AssignedList(
                        DefaultOperatorStateStore.Mode.SPLIT,
                        List.of(new StateElement.Stored(file, 0)))))),
        List.of(),
        List.of(),
        TaskRestore.AssignedSplits.NONE);
  }

  @Test
  void aVerificationWhoseReadTimesOutIsNoCorruptionAndPassesOnceReadsWork() throws Exception {
    try (RestoreVerifier verifier = verifier()) {
      fs.timeOut(path -> true);
      Throwable failed = catchThrowable(() -> verifier.verify(checkpoint, storage));

      assertThat(failed)
          .isInstanceOf(IOException.class)
          .isNotInstanceOf(CorruptCheckpointException.class)
          .hasMessageContaining("Checkpoint 3")
          .hasMessageContaining("counter")
          .hasMessageContaining("timed out");
      assertThat(CorruptCheckpointException.findIn(failed)).isEqualTo(-1);

      fs.answer();
      verifier.verify(checkpoint, storage);
    }
  }

  @Test
  void aMissingFileAndAChecksumMismatchAreCorruption() throws Exception {
    Path local = localFile();
    byte[] bytes = Files.readAllBytes(local);
    bytes[bytes.length - 1] ^= 1;
    Files.write(local, bytes);
    try (RestoreVerifier verifier = verifier()) {
      assertThatThrownBy(() -> verifier.verify(checkpoint, storage))
          .isInstanceOf(CorruptCheckpointException.class)
          .hasMessageContaining("checksum mismatch")
          .hasCauseInstanceOf(DamagedStateException.class);
    }
    Files.delete(local);
    try (RestoreVerifier verifier = verifier()) {
      assertThatThrownBy(() -> verifier.verify(checkpoint, storage))
          .isInstanceOf(CorruptCheckpointException.class)
          .hasMessageContaining("is missing");
    }
  }

  @Test
  void aTaskWhoseRestoreReadTimesOutFailsWithoutNamingTheCheckpointCorrupt() throws Exception {
    fs.timeOut(path -> true);
    Throwable failed = catchThrowable(() -> restore().read());

    assertThat(failed)
        .isInstanceOf(IOException.class)
        .isNotInstanceOf(CorruptCheckpointException.class)
        .hasMessageContaining("Checkpoint 3")
        .hasMessageContaining("timed out");
    assertThat(CorruptCheckpointException.findIn(failed)).isEqualTo(-1);

    fs.answer();
    assertThat(restore().read().operators().get("op").operatorLists().get("list").elements())
        .containsExactly(new byte[] {42});
  }

  @Test
  void aTaskWhoseStateFileIsMissingNamesTheCheckpointCorrupt() throws Exception {
    Files.delete(localFile());

    assertThatThrownBy(() -> restore().read())
        .isInstanceOf(CorruptCheckpointException.class)
        .hasMessageContaining("Checkpoint 3 cannot be restored")
        .hasMessageContaining("is missing");
  }

  /** Checkpoints 2 and 3 committed to the job's directory, as the coordinator commits them. */
  private String jobDirectoryWithTwoCheckpoints() throws IOException {
    storage.commitCheckpoint(
        checkpointWith(2, storage.writeState(2, new byte[] {0, 0, 0, 1, 7}, "list")));
    storage.commitCheckpoint(checkpoint);
    return SCHEME + "://" + dir.resolve(JOB);
  }

  @Test
  void aJobDirectoryWhoseNewestMetadataTimesOutIsNotResumedFromAnOlderCheckpoint()
      throws Exception {
    String jobDirectory = jobDirectoryWithTwoCheckpoints();
    fs.timeOut(path -> path.endsWith("chk-3/_metadata"));

    Throwable failed =
        catchThrowable(() -> CompletedCheckpointLocation.loadRestoreCandidates(jobDirectory, null));

    assertThat(failed)
        .isInstanceOf(IOException.class)
        .hasMessageContaining("chk-3")
        .hasMessageContaining("timed out")
        .hasMessageContaining("no checkpoint was skipped");
    assertThat(DamagedStateException.isDamage((IOException) failed)).isFalse();

    fs.answer();
    assertThat(CompletedCheckpointLocation.loadRestoreCandidates(jobDirectory, null).checkpoints())
        .extracting(c -> c.checkpoint().checkpointId())
        .containsExactly(3L, 2L);
  }

  @Test
  void aJobDirectoryWhoseNewestMetadataIsDamagedIsResumedFromTheOlderCheckpoint() throws Exception {
    String jobDirectory = jobDirectoryWithTwoCheckpoints();
    Path metadata = dir.resolve(JOB).resolve("chk-3").resolve("_metadata");
    byte[] bytes = Files.readAllBytes(metadata);
    bytes[bytes.length / 2] ^= 1;
    Files.write(metadata, bytes);

    var candidates = CompletedCheckpointLocation.loadRestoreCandidates(jobDirectory, null);

    assertThat(candidates.checkpoints())
        .extracting(c -> c.checkpoint().checkpointId())
        .containsExactly(2L);
    assertThat(candidates.skipped())
        .singleElement()
        .asString()
        .startsWith("chk-3 skipped")
        .contains("checksum mismatch");
  }
}
