package io.weir.runtime.storage;

import static io.weir.runtime.storage.TestCheckpoints.JOB_ID;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.weir.runtime.checkpoint.CompletedCheckpoint;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link FileSystemCheckpointStorage} on a file system other than local disk (HDFS, S3): commit,
 * restore, a partly written checkpoint ignored, relocation by URI. A subclass gives a fresh base
 * URI per test on a real server.
 */
public abstract class CheckpointStorageContract {

  private static final int THRESHOLD = 100;
  private static final int SMALL = 40;
  private static final int LARGE = 1000;

  @TempDir Path local;

  private URI base;

  /** A base directory URI for one test, unique. */
  protected abstract URI newBaseUri();

  @BeforeEach
  void newBase() {
    base = newBaseUri();
  }

  private FileSystemCheckpointStorage storage() {
    return new FileSystemCheckpointStorage(base, JOB_ID, THRESHOLD);
  }

  private FileSystem fs() {
    return FileSystems.get(base);
  }

  private String jobDir() {
    return FileSystems.pathOf(base) + "/" + JOB_ID;
  }

  @Test
  void aCommittedCheckpointRestoresWithItsState() throws IOException {
    FileSystemCheckpointStorage storage = storage();
    CompletedCheckpoint checkpoint = TestCheckpoints.write(storage, 1, SMALL, LARGE);
    String pointer = storage.commitCheckpoint(checkpoint);

    assertThat(pointer).isEqualTo(base + "/" + JOB_ID + "/chk-1");
    assertThat(fs().exists(jobDir() + "/chk-1/_metadata")).isTrue();
    // Never a leftover of the commit, whether it renamed or wrote the metadata directly.
    assertThat(fs().list(jobDir() + "/chk-1")).doesNotContain("_metadata.inprogress");

    List<String> problems = new ArrayList<>();
    List<CompletedCheckpoint> retained = storage().loadRetained(problems);
    assertThat(problems).isEmpty();
    assertThat(retained).hasSize(1);
    assertThat(TestCheckpoints.readAll(storage(), retained.get(0)))
        .containsExactlyElementsOf(TestCheckpoints.expected(1, SMALL, LARGE));
  }

  @Test
  void aPartlyWrittenCheckpointWithoutMetadataIsIgnored() throws IOException {
    FileSystemCheckpointStorage storage = storage();
    storage.commitCheckpoint(TestCheckpoints.write(storage, 1, SMALL, LARGE));
    TestCheckpoints.write(storage, 2, SMALL, LARGE); // state files of 2, never committed
    assertThat(fs().list(jobDir() + "/chk-2")).isNotEmpty();

    List<String> problems = new ArrayList<>();
    List<CompletedCheckpoint> retained = storage().loadRetained(problems);
    assertThat(problems).isEmpty();
    assertThat(retained).extracting(CompletedCheckpoint::checkpointId).containsExactly(1L);
  }

  @Test
  void aCheckpointIdIsCommittedOnce() throws IOException {
    FileSystemCheckpointStorage storage = storage();
    CompletedCheckpoint checkpoint = TestCheckpoints.write(storage, 3, SMALL, LARGE);
    storage.commitCheckpoint(checkpoint);
    assertThatThrownBy(() -> storage.commitCheckpoint(checkpoint))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("already committed")
        .hasMessageContaining(base + "/" + JOB_ID + "/chk-3/_metadata");
  }

  @Test
  void aCheckpointLoadsFromItsUri() throws IOException {
    FileSystemCheckpointStorage storage = storage();
    String pointer = storage.commitCheckpoint(TestCheckpoints.write(storage, 4, SMALL, LARGE));

    RetainedCheckpoint loaded = CompletedCheckpointLocation.load(pointer, null);
    assertThat(loaded.checkpoint().checkpointId()).isEqualTo(4);
    assertThat(TestCheckpoints.readAll(loaded.storage(), loaded.checkpoint()))
        .containsExactlyElementsOf(TestCheckpoints.expected(4, SMALL, LARGE));
    RetainedCheckpoint byMetadata = CompletedCheckpointLocation.load(pointer + "/_metadata", null);
    assertThat(byMetadata.checkpoint().checkpointId()).isEqualTo(4);
    assertThat(TestCheckpoints.readAll(byMetadata.storage(), byMetadata.checkpoint()))
        .containsExactlyElementsOf(TestCheckpoints.expected(4, SMALL, LARGE));
  }

  @Test
  void discardingACheckpointRemovesItsDirectory() throws IOException {
    FileSystemCheckpointStorage storage = storage();
    storage.commitCheckpoint(TestCheckpoints.write(storage, 5, SMALL, LARGE));
    storage.commitCheckpoint(TestCheckpoints.write(storage, 6, SMALL, LARGE));
    storage.discardCheckpoint(5);
    assertThat(fs().exists(jobDir() + "/chk-5")).isFalse();
    assertThat(storage().loadRetained(new ArrayList<>()))
        .extracting(CompletedCheckpoint::checkpointId)
        .containsExactly(6L);
  }

  @Test
  void sharedFilesThatNoCheckpointReferencesAreDeleted() throws IOException {
    FileSystemCheckpointStorage storage = storage();
    Path sst = local.resolve("000001.sst");
    Files.write(sst, TestCheckpoints.bytes(5000, 9));
    StreamStateHandle kept = storage.writeSharedFile(1, sst, "sst kept");
    StreamStateHandle dropped = storage.writeSharedFile(1, sst, "sst dropped");
    String keptPath = ((StreamStateHandle.File) kept).relativePath();
    String droppedPath = ((StreamStateHandle.File) dropped).relativePath();

    storage.discardUnreferencedSharedState(Set.of(keptPath), 1);

    assertThat(fs().exists(jobDir() + "/" + keptPath)).isTrue();
    assertThat(fs().exists(jobDir() + "/" + droppedPath)).isFalse();
    Path back = local.resolve("back-" + UUID.randomUUID());
    storage.readStateToFile(kept, back);
    assertThat(back).hasSameBinaryContentAs(sst);
  }
}
