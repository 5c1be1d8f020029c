package io.weir.runtime.storage;

import static io.weir.runtime.storage.TestCheckpoints.JOB_ID;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.InstanceOfAssertFactories.STRING;

import io.weir.runtime.checkpoint.CompletedCheckpoint;
import io.weir.runtime.checkpoint.KeyGroupsStateHandle;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FileSystemCheckpointStorageTest {

  private static final int THRESHOLD = 100;
  private static final int SMALL = 40;
  private static final int LARGE = 1000;

  @TempDir Path base;

  private FileSystemCheckpointStorage storage() {
    return new FileSystemCheckpointStorage(base.toUri(), JOB_ID, THRESHOLD);
  }

  private Path jobDir() {
    return base.resolve(JOB_ID);
  }

  // --- writing and reading state ---

  @Test
  void stateUpToTheThresholdIsInlinedAndLargerStateGoesToAFileOfTheCheckpoint() throws IOException {
    FileSystemCheckpointStorage storage = storage();
    byte[] atThreshold = TestCheckpoints.bytes(THRESHOLD, 1);
    byte[] above = TestCheckpoints.bytes(THRESHOLD + 1, 2);

    StreamStateHandle inline = storage.writeState(7, atThreshold, "op/state");
    StreamStateHandle file = storage.writeState(7, above, "op/state");

    assertThat(inline).isInstanceOf(StreamStateHandle.Inline.class);
    assertThat(inline.size()).isEqualTo(THRESHOLD);
    assertThat(file).isInstanceOf(StreamStateHandle.File.class);
    String relativePath = ((StreamStateHandle.File) file).relativePath();
    assertThat(relativePath).startsWith("chk-7/");
    assertThat(jobDir().resolve(relativePath)).hasBinaryContent(above);
    assertThat(file.crc32()).isEqualTo(MetadataSerializer.crc32(above, 0, above.length));
    assertThat(storage.readState(inline)).isEqualTo(atThreshold);
    assertThat(storage.readState(file)).isEqualTo(above);
  }

  @Test
  void aZeroThresholdPutsAllButEmptyStateInFiles() throws IOException {
    FileSystemCheckpointStorage storage = new FileSystemCheckpointStorage(base.toUri(), JOB_ID, 0);

    assertThat(storage.writeState(1, new byte[0], "empty"))
        .isInstanceOf(StreamStateHandle.Inline.class);
    assertThat(storage.writeState(1, new byte[] {42}, "one byte"))
        .isInstanceOf(StreamStateHandle.File.class);
  }

  @Test
  void inlineStateIsCopiedSoACallerReusingItsBufferCannotChangeIt() throws IOException {
    byte[] buffer = {1, 2, 3};
    StreamStateHandle handle = storage().writeState(1, buffer, "op/state");
    buffer[0] = 9;

    assertThat(storage().readState(handle)).containsExactly(1, 2, 3);
  }

  @Test
  void aCorruptStateFileIsDetectedOnReadNamingTheFile() throws IOException {
    FileSystemCheckpointStorage storage = storage();
    StreamStateHandle.File handle =
        (StreamStateHandle.File) storage.writeState(7, TestCheckpoints.bytes(LARGE, 3), "op/s");
    Path file = jobDir().resolve(handle.relativePath());
    byte[] bytes = Files.readAllBytes(file);
    bytes[LARGE / 2] ^= 0x10;
    Files.write(file, bytes);

    assertThatThrownBy(() -> storage.readState(handle))
        .isInstanceOf(IOException.class)
        .hasMessageStartingWith("State file " + handle.relativePath())
        .hasMessageContaining("is corrupt (checksum mismatch");
  }

  @Test
  void aTruncatedOrGrownStateFileIsDetectedOnRead() throws IOException {
    FileSystemCheckpointStorage storage = storage();
    StreamStateHandle.File handle =
        (StreamStateHandle.File) storage.writeState(7, TestCheckpoints.bytes(LARGE, 3), "op/s");
    Path file = jobDir().resolve(handle.relativePath());

    Files.write(file, new byte[] {0}, StandardOpenOption.APPEND);
    assertThatThrownBy(() -> storage.readState(handle))
        .hasMessageContaining(handle.relativePath())
        .hasMessageContaining("is corrupt (more than 1000 bytes, expected 1000)");

    Files.write(file, TestCheckpoints.bytes(LARGE - 1, 3));
    assertThatThrownBy(() -> storage.readState(handle))
        .hasMessageContaining("is corrupt (999 bytes, expected 1000)");
  }

  @Test
  void aMissingStateFileIsDetectedOnReadNamingTheFile() throws IOException {
    FileSystemCheckpointStorage storage = storage();
    StreamStateHandle.File handle =
        (StreamStateHandle.File) storage.writeState(7, TestCheckpoints.bytes(LARGE, 3), "op/s");
    Files.delete(jobDir().resolve(handle.relativePath()));

    assertThatThrownBy(() -> storage.readState(handle))
        .isInstanceOf(IOException.class)
        .hasMessageStartingWith("State file " + handle.relativePath())
        .hasMessageEndingWith("is missing")
        .hasCauseInstanceOf(FileNotFoundException.class);
  }

  @Test
  void corruptInlineStateIsDetectedOnRead() {
    StreamStateHandle.Inline handle = new StreamStateHandle.Inline(new byte[] {1, 2, 3}, 0);

    assertThatThrownBy(() -> storage().readState(handle))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("Inline state of 3 bytes is corrupt (checksum mismatch");
  }

  @Test
  void aHandleCannotReachOutsideTheJobDirectory() {
    for (String path : List.of("../other-job/chk-1/x", "/etc/passwd", "chk-1/../../x", "")) {
      StreamStateHandle.File handle = new StreamStateHandle.File(path, 1, 0);
      assertThatThrownBy(() -> storage().readState(handle))
          .as(path)
          .isInstanceOf(IOException.class)
          .hasMessageContaining("is not a path inside the job directory");
    }
  }

  // --- committing ---

  @Test
  void commitWritesMetadataAtomicallyAndReturnsTheCheckpointDirectory() throws IOException {
    FileSystemCheckpointStorage storage = storage();
    CompletedCheckpoint checkpoint = TestCheckpoints.write(storage, 3, SMALL, LARGE);
    Path checkpointDir = jobDir().resolve("chk-3");

    // State files are there, but until the commit nothing says the checkpoint completed.
    assertThat(checkpointDir).isDirectory();
    assertThat(checkpointDir.resolve("_metadata")).doesNotExist();
    assertThat(storage.loadRetained(new ArrayList<>())).isEmpty();

    String pointer = storage.commitCheckpoint(checkpoint);

    assertThat(pointer).isEqualTo(checkpointDir.toUri().toString().replaceAll("/$", ""));
    assertThat(checkpointDir.resolve("_metadata")).isRegularFile();
    assertThat(checkpointDir.resolve("_metadata.inprogress")).doesNotExist();
    assertThat(jobDir().resolve("shared")).isDirectory();
    assertThat(jobDir().resolve("taskowned"))
        .as("no task-owned state: no such directory")
        .doesNotExist();
    assertThat(storage.loadRetained(new ArrayList<>()))
        .singleElement()
        .usingRecursiveComparison()
        .isEqualTo(checkpoint);
    assertThatThrownBy(() -> storage.commitCheckpoint(checkpoint))
        .hasMessageContaining("Checkpoint 3 is already committed");
  }

  @Test
  void aLeftoverInProgressMetadataIsNotACheckpoint() throws IOException {
    FileSystemCheckpointStorage storage = storage();
    storage.commitCheckpoint(TestCheckpoints.write(storage, 1, SMALL, LARGE));
    // Checkpoint 2 crashed between writing its metadata and the rename.
    CompletedCheckpoint second = TestCheckpoints.write(storage, 2, SMALL, LARGE);
    Files.write(
        jobDir().resolve("chk-2/_metadata.inprogress"), MetadataSerializer.serialize(second));

    List<String> problems = new ArrayList<>();
    assertThat(storage.loadRetained(problems))
        .extracting(CompletedCheckpoint::checkpointId)
        .containsExactly(1L);
    assertThat(problems).isEmpty();
    assertThatThrownBy(() -> CompletedCheckpointLocation.load(jobDir() + "/chk-2", null))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("has no _metadata file")
        .hasMessageContaining("never completed");

    // A retried commit replaces the leftover.
    storage.commitCheckpoint(second);
    assertThat(storage.loadRetained(problems))
        .extracting(CompletedCheckpoint::checkpointId)
        .containsExactly(2L, 1L);
  }

  // --- retained checkpoints ---

  @Test
  void retainedCheckpointsComeNewestFirstAndACorruptOneIsSkippedWithAProblemLine()
      throws IOException {
    FileSystemCheckpointStorage storage = storage();
    for (long id : new long[] {1, 2, 3, 10}) {
      storage.commitCheckpoint(TestCheckpoints.write(storage, id, SMALL, LARGE));
    }
    flipByte(jobDir().resolve("chk-3/_metadata"), 20);
    Files.createDirectories(jobDir().resolve("chk-11")); // in progress
    Files.createDirectories(jobDir().resolve("chk-abc")); // not ours

    List<String> problems = new ArrayList<>();
    List<CompletedCheckpoint> retained = storage.loadRetained(problems);

    assertThat(retained).extracting(CompletedCheckpoint::checkpointId).containsExactly(10L, 2L, 1L);
    assertThat(problems)
        .singleElement(STRING)
        .startsWith("chk-3 skipped: ")
        .contains("chk-3/_metadata is corrupt: checksum mismatch");
    for (CompletedCheckpoint checkpoint : retained) {
      assertThat(TestCheckpoints.readAll(storage, checkpoint))
          .containsExactlyElementsOf(
              TestCheckpoints.expected(checkpoint.checkpointId(), SMALL, LARGE));
    }
  }

  @Test
  void everySingleByteCorruptionOfAMetadataFileMakesItFallBack() throws IOException {
    FileSystemCheckpointStorage storage = storage();
    storage.commitCheckpoint(TestCheckpoints.write(storage, 1, SMALL, LARGE));
    storage.commitCheckpoint(TestCheckpoints.write(storage, 2, SMALL, LARGE));
    Path metadata = jobDir().resolve("chk-2/_metadata");
    byte[] good = Files.readAllBytes(metadata);

    for (int i = 0; i < good.length; i++) {
      byte[] bad = good.clone();
      bad[i] ^= (byte) 0xff;
      Files.write(metadata, bad);
      List<String> problems = new ArrayList<>();
      assertThat(storage.loadRetained(problems))
          .as("byte %d flipped", i)
          .extracting(CompletedCheckpoint::checkpointId)
          .containsExactly(1L);
      assertThat(problems).singleElement(STRING).startsWith("chk-2 skipped: ");
    }
  }

  @Test
  void aCheckpointWhoseStateFileIsMissingIsSkippedWithAProblemLine() throws IOException {
    FileSystemCheckpointStorage storage = storage();
    storage.commitCheckpoint(TestCheckpoints.write(storage, 1, SMALL, LARGE));
    CompletedCheckpoint second = TestCheckpoints.write(storage, 2, SMALL, LARGE);
    storage.commitCheckpoint(second);
    String lost =
        ((StreamStateHandle.File)
                ((KeyGroupsStateHandle) second.operators().get(1).subtasks().get(0).keyed()).data())
            .relativePath();
    Files.delete(jobDir().resolve(lost));

    List<String> problems = new ArrayList<>();
    assertThat(storage.loadRetained(problems))
        .extracting(CompletedCheckpoint::checkpointId)
        .containsExactly(1L);
    assertThat(problems)
        .containsExactly(
            "chk-2 skipped: state file "
                + lost
                + " of operator CountPerKey ("
                + jobDir().resolve(lost).toUri()
                + ") is missing");
  }

  @Test
  void aJobWithoutCheckpointsHasNoneRetained() throws IOException {
    assertThat(storage().loadRetained(new ArrayList<>())).isEmpty();
  }

  @Test
  void discardDeletesTheCheckpointDirectory() throws IOException {
    FileSystemCheckpointStorage storage = storage();
    storage.commitCheckpoint(TestCheckpoints.write(storage, 1, SMALL, LARGE));
    storage.commitCheckpoint(TestCheckpoints.write(storage, 2, SMALL, LARGE));

    storage.discardCheckpoint(1);
    storage.discardCheckpoint(99); // nothing there: no error

    assertThat(jobDir().resolve("chk-1")).doesNotExist();
    assertThat(storage.loadRetained(new ArrayList<>()))
        .extracting(CompletedCheckpoint::checkpointId)
        .containsExactly(2L);
  }

  /**
   * Deletes a directory's files one by one, state files first, and crashes before the last one: the
   * worst order a recursive delete can take.
   */
  static final class CrashingDeleteFileSystem extends ForwardingFileSystem {
    CrashingDeleteFileSystem() {
      super("crashy");
    }

    @Override
    public boolean delete(String path, boolean recursive) throws IOException {
      if (!recursive) {
        return super.delete(path, false);
      }
      List<String> names = new ArrayList<>(list(path));
      names.sort((a, b) -> Boolean.compare(a.startsWith("_"), b.startsWith("_")));
      for (int i = 0; i < names.size() - 1; i++) {
        super.delete(path + "/" + names.get(i), true);
      }
      throw new IOException("crash while deleting " + path);
    }
  }

  @Test
  void aCrashWhileDiscardingNeverLeavesMetadataWhoseFilesAreGone() throws IOException {
    FileSystems.register("crashy", new CrashingDeleteFileSystem());
    try {
      FileSystemCheckpointStorage storage =
          new FileSystemCheckpointStorage(
              java.net.URI.create("crashy://" + base), JOB_ID, THRESHOLD);
      storage.commitCheckpoint(TestCheckpoints.write(storage, 1, SMALL, LARGE));
      storage.commitCheckpoint(TestCheckpoints.write(storage, 2, SMALL, LARGE));

      assertThatThrownBy(() -> storage.discardCheckpoint(1)).hasMessageContaining("crash");

      // The metadata went first: what is left of chk-1 is an incomplete checkpoint, ignored.
      assertThat(jobDir().resolve("chk-1/" + FileSystemCheckpointStorage.METADATA_FILE))
          .doesNotExist();
      List<String> problems = new ArrayList<>();
      assertThat(storage.loadRetained(problems))
          .extracting(CompletedCheckpoint::checkpointId)
          .containsExactly(2L);
      assertThat(problems).isEmpty();
    } finally {
      FileSystems.unregister("crashy");
    }
  }

  // --- restoring from a path a user gives ---

  @Test
  void aCopiedJobDirectoryRestoresFromItsNewPlace() throws IOException {
    FileSystemCheckpointStorage storage = storage();
    storage.commitCheckpoint(TestCheckpoints.write(storage, 5, SMALL, LARGE));
    Path copy = base.resolve("elsewhere/renamed-job");
    copyTree(jobDir(), copy);
    deleteTree(jobDir());

    for (String given :
        List.of(
            copy.resolve("chk-5").toString(),
            copy.resolve("chk-5/_metadata").toString(),
            copy.resolve("chk-5").toUri().toString(),
            "file://" + copy.resolve("chk-5") + "/")) {
      RetainedCheckpoint restored = CompletedCheckpointLocation.load(given, null);

      assertThat(restored.checkpoint().checkpointId()).as(given).isEqualTo(5);
      assertThat(restored.externalPointer())
          .isEqualTo(copy.resolve("chk-5").toUri().toString().replaceAll("/$", ""));
      assertThat(TestCheckpoints.readAll(restored.storage(), restored.checkpoint()))
          .containsExactlyElementsOf(TestCheckpoints.expected(5, SMALL, LARGE));
    }
  }

  @Test
  void aCheckpointDirectoryCopiedAloneUnderAnotherNameStillRestores() throws IOException {
    FileSystemCheckpointStorage storage = storage();
    storage.commitCheckpoint(TestCheckpoints.write(storage, 5, SMALL, LARGE));
    Path copy = base.resolve("backups/before-upgrade");
    copyTree(jobDir().resolve("chk-5"), copy);
    deleteTree(jobDir());

    RetainedCheckpoint restored = CompletedCheckpointLocation.load(copy.toString(), null);

    assertThat(TestCheckpoints.readAll(restored.storage(), restored.checkpoint()))
        .containsExactlyElementsOf(TestCheckpoints.expected(5, SMALL, LARGE));
  }

  @Test
  void aNewJobRestoresFromAnOldJobsCheckpointAndCheckpointsIntoItsOwnDirectory()
      throws IOException {
    FileSystemCheckpointStorage oldJob = storage();
    String pointer = oldJob.commitCheckpoint(TestCheckpoints.write(oldJob, 5, SMALL, LARGE));
    String newJobId = "fedcba9876543210fedcba9876543210";
    FileSystemCheckpointStorage newJob =
        new FileSystemCheckpointStorage(base.toUri(), newJobId, THRESHOLD);

    RetainedCheckpoint restored = CompletedCheckpointLocation.load(pointer, null);
    List<byte[]> state = TestCheckpoints.readAll(restored.storage(), restored.checkpoint());
    CompletedCheckpoint next = TestCheckpoints.write(newJob, 6, SMALL, LARGE);
    newJob.commitCheckpoint(next);

    assertThat(state).containsExactlyElementsOf(TestCheckpoints.expected(5, SMALL, LARGE));
    assertThat(base.resolve(newJobId).resolve("chk-6/_metadata")).isRegularFile();
    assertThat(newJob.loadRetained(new ArrayList<>()))
        .extracting(CompletedCheckpoint::checkpointId)
        .containsExactly(6L);
    // The checkpoint restored from is never changed through its location: it only reads.
    assertThat(restored.storage())
        .isInstanceOf(CompletedCheckpointLocation.class)
        .isNotInstanceOf(CheckpointStateWriter.class)
        .isNotInstanceOf(CheckpointStorageCoordinatorView.class);
    assertThat(jobDir().resolve("chk-5/_metadata")).isRegularFile();
  }

  @Test
  void restoringFromAPathThatIsNotACheckpointSaysWhatIsThereAndWhatToGive() throws IOException {
    FileSystemCheckpointStorage storage = storage();
    storage.commitCheckpoint(TestCheckpoints.write(storage, 4, SMALL, LARGE));
    Path nowhere = base.resolve("nowhere");
    Path foreign = Files.writeString(base.resolve("notes.txt"), "not a checkpoint");

    assertThatThrownBy(() -> CompletedCheckpointLocation.load(nowhere.toString(), null))
        .isInstanceOf(FileNotFoundException.class)
        .hasMessageContaining(nowhere.toString())
        .hasMessageContaining("does not exist");
    assertThatThrownBy(() -> CompletedCheckpointLocation.load(jobDir().toString(), null))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("has no _metadata file")
        .hasMessageContaining("give one of its checkpoints, such as")
        .hasMessageContaining("chk-4");
    assertThatThrownBy(() -> CompletedCheckpointLocation.load(foreign.toString(), null))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("notes.txt is not a Weir checkpoint metadata file");
    assertThatThrownBy(() -> CompletedCheckpointLocation.load("s3://bucket/chk-4", null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'s3'");
  }

  @Test
  void restoringFromACheckpointWithAMissingStateFileFailsNamingIt() throws IOException {
    FileSystemCheckpointStorage storage = storage();
    CompletedCheckpoint checkpoint = TestCheckpoints.write(storage, 4, SMALL, LARGE);
    String pointer = storage.commitCheckpoint(checkpoint);
    String lost =
        ((StreamStateHandle.File)
                ((KeyGroupsStateHandle) checkpoint.operators().get(1).subtasks().get(1).keyed())
                    .data())
            .relativePath();
    Files.delete(jobDir().resolve(lost));

    assertThatThrownBy(() -> CompletedCheckpointLocation.load(pointer, null))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("Cannot restore from " + pointer)
        .hasMessageContaining("state file " + lost)
        .hasMessageContaining("is missing");
  }

  @Test
  void anInvalidJobIdOrThresholdIsRefused() {
    assertThatThrownBy(() -> new FileSystemCheckpointStorage(base.toUri(), "../x", 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'../x'");
    assertThatThrownBy(() -> new FileSystemCheckpointStorage(base.toUri(), JOB_ID, -1))
        .isInstanceOf(IllegalArgumentException.class);
  }

  // --- helpers ---

  private static void flipByte(Path file, int index) throws IOException {
    byte[] bytes = Files.readAllBytes(file);
    bytes[index] ^= 0x01;
    Files.write(file, bytes);
  }

  private static void copyTree(Path from, Path to) throws IOException {
    Files.createDirectories(to.getParent());
    try (Stream<Path> paths = Files.walk(from)) {
      paths.forEach(
          p -> {
            try {
              Files.copy(p, to.resolve(from.relativize(p).toString()));
            } catch (IOException e) {
              throw new UncheckedIOException(e);
            }
          });
    }
  }

  private static void deleteTree(Path dir) throws IOException {
    assertThat(LocalFileSystem.INSTANCE.delete(dir.toString(), true)).isTrue();
    assertThat(dir).doesNotExist();
  }
}
