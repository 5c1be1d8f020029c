package io.weir.runtime.storage;

import static io.weir.runtime.storage.TestCheckpoints.JOB_ID;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.weir.api.config.CheckpointingOptions;
import io.weir.api.config.Configuration;
import io.weir.runtime.checkpoint.CompletedCheckpoint;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The roles checkpoint storage is split into: the job's storage, a savepoint's location the tasks
 * write into, a completed checkpoint's location that only reads, and the reference that crosses
 * between processes instead of any of them.
 */
class StorageRolesTest {

  private static final int SMALL = 10;
  private static final int LARGE = 5_000;
  private static final int THRESHOLD = 100;

  @TempDir Path base;

  private FileSystemCheckpointStorage storage() {
    return new FileSystemCheckpointStorage(base.toUri(), JOB_ID, THRESHOLD);
  }

  @Test
  void theJobsStorageIsItsOwnLocationForCheckpointsAndNamesASavepointsDirectoryForSavepoints()
      throws IOException {
    FileSystemCheckpointStorage storage = storage();
    assertThat(storage.location(7, null)).isSameAs(storage);

    String target = storage.initializeSavepointLocation(JOB_ID, base.resolve("sp").toString());
    assertThat(target).contains("/sp/" + Savepoints.DIRECTORY_PREFIX + JOB_ID.substring(0, 6));
    assertThat(storage.location(7, target)).isInstanceOf(SavepointLocation.class);
  }

  @Test
  void aSavepointLocationWritesOnlyIntoTheSavepointsDirectoryAndSharesNothing() throws IOException {
    Path dir = base.resolve("savepoint-1");
    SavepointLocation location = SavepointLocation.of(dir.toString(), 3, THRESHOLD, null);
    Path sst = Files.write(base.resolve("000001.sst"), TestCheckpoints.bytes(LARGE, 1));

    StreamStateHandle inline = location.writeState(3, new byte[SMALL], "op/small");
    StreamStateHandle.File large =
        (StreamStateHandle.File) location.writeState(3, TestCheckpoints.bytes(LARGE, 2), "op/big");
    StreamStateHandle.File shared =
        (StreamStateHandle.File) location.writeSharedFile(3, sst, "op/sst");

    assertThat(inline).isInstanceOf(StreamStateHandle.Inline.class);
    assertThat(large.relativePath()).startsWith("chk-3/");
    assertThat(shared.relativePath()).startsWith("chk-3/");
    try (var files = Files.list(dir)) {
      assertThat(files).hasSize(2);
    }
    assertThat(base.resolve(JOB_ID)).doesNotExist();
    assertThatThrownBy(() -> location.writeState(4, TestCheckpoints.bytes(LARGE, 3), "op/big"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("savepoint 3")
        .hasMessageContaining("checkpoint 4");
  }

  @Test
  void aCheckpointFoundAtAPathIsReachedByAReferenceToItsDirectory() throws IOException {
    FileSystemCheckpointStorage storage = storage();
    String pointer = storage.commitCheckpoint(TestCheckpoints.write(storage, 5, SMALL, LARGE));
    RetainedCheckpoint loaded = CompletedCheckpointLocation.load(pointer, null);

    StorageReference reference = loaded.storage().reference();
    assertThat(reference).isEqualTo(StorageReference.checkpoint(loaded.externalPointer()));

    // What a TaskManager does with the reference it is sent: resolve it with the job's settings.
    CheckpointStateReader reader =
        CheckpointStorages.reader(reference, new Configuration(), "another job");
    assertThat(reader).isInstanceOf(CompletedCheckpointLocation.class);
    assertThat(TestCheckpoints.readAll(reader, loaded.checkpoint()))
        .containsExactlyElementsOf(TestCheckpoints.expected(5, SMALL, LARGE));
  }

  @Test
  void theJobsOwnStorageIsReachedByTheJobsConfiguration() throws IOException {
    FileSystemCheckpointStorage storage = storage();
    CompletedCheckpoint checkpoint = TestCheckpoints.write(storage, 6, SMALL, LARGE);
    storage.commitCheckpoint(checkpoint);
    assertThat(storage.reference()).isEqualTo(StorageReference.JOB_STORAGE);

    Configuration conf =
        new Configuration().set(CheckpointingOptions.CHECKPOINTS_DIRECTORY, base.toString());
    CheckpointStateReader reader =
        CheckpointStorages.reader(StorageReference.JOB_STORAGE, conf, JOB_ID);

    assertThat(((FileSystemCheckpointStorage) reader).jobDirectory())
        .isEqualTo(storage.jobDirectory());
    assertThat(TestCheckpoints.readAll(reader, checkpoint))
        .containsExactlyElementsOf(TestCheckpoints.expected(6, SMALL, LARGE));
  }

  @Test
  void aReferenceToACheckpointNeedsItsPointerAndOnlySuchAReferenceHasOne() {
    assertThatThrownBy(() -> new StorageReference(StorageReference.Kind.CHECKPOINT, null))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new StorageReference(StorageReference.Kind.JOB, "file:/x"))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void aReferenceToACheckpointThatIsGoneFailsNamingIt() {
    String pointer = base.resolve("gone/chk-9").toUri().toString();
    assertThatThrownBy(
            () ->
                CheckpointStorages.reader(
                    StorageReference.checkpoint(pointer), new Configuration(), JOB_ID))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("gone/chk-9");
  }
}
