package io.weir.runtime.storage;

import static io.weir.runtime.storage.TestCheckpoints.JOB_ID;
import static org.assertj.core.api.Assertions.assertThat;

import io.weir.runtime.checkpoint.CompletedCheckpoint;
import io.weir.runtime.checkpoint.IncrementalKeyedStateHandle;
import io.weir.runtime.checkpoint.OperatorState;
import io.weir.runtime.checkpoint.OperatorSubtaskState;
import io.weir.runtime.state.KeyGroupRange;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The orphan scan and cleanup on real local files, on a job directory shaped as a job with
 * incremental checkpoints leaves it after failures: completed checkpoints 1, 2 and 4 (4 reuses a
 * shared file of 2), checkpoint 3 aborted (its own file and {@code _metadata.inprogress} left in
 * {@code chk-3}, a stray upload in {@code shared/}), a leftover {@code _metadata.inprogress} in the
 * completed {@code chk-2}, and checkpoint 5 still in progress (a file in {@code chk-5}, an upload
 * in {@code shared/}).
 */
class CheckpointDirectoryScanTest {

  private static final int SMALL = 40;
  private static final int LARGE = 1000;

  @TempDir Path base;
  @TempDir Path local;

  private FileSystemCheckpointStorage storage;
  private final List<CompletedCheckpoint> completed = new ArrayList<>();
  private String strayShared;
  private String abortedFile;
  private String inProgressFile;
  private String inProgressShared;

  private Path jobDir() {
    return base.resolve(JOB_ID);
  }

  @BeforeEach
  void layOutAJobDirectoryAfterFailures() throws IOException {
    storage = new FileSystemCheckpointStorage(base.toUri(), JOB_ID, 100);
    StreamStateHandle.File sharedOf1 = shared(1, 11);
    completed.add(commit(1, List.of(sharedOf1)));
    StreamStateHandle.File sharedOf2 = shared(2, 22);
    completed.add(commit(2, List.of(sharedOf1, sharedOf2)));
    Files.write(jobDir().resolve("chk-2/_metadata.inprogress"), new byte[] {1, 2, 3});

    // Checkpoint 3 aborted after a task uploaded a shared file and wrote a file of its own.
    strayShared = shared(3, 33).relativePath();
    abortedFile = file(3, 34).relativePath();
    Files.write(jobDir().resolve("chk-3/_metadata.inprogress"), new byte[] {4, 5});

    completed.add(commit(4, List.of(sharedOf2, shared(4, 44))));

    // Checkpoint 5 is in progress: tasks are writing its files.
    inProgressShared = shared(5, 55).relativePath();
    inProgressFile = file(5, 56).relativePath();
  }

  @Test
  void scanReportsEveryOrphanWithItsSizeAndChangesNothing() throws IOException {
    Map<String, Long> before = tree();

    CheckpointDirectoryScan.Report report = CheckpointDirectoryScan.scan(storage.jobDirectory());

    assertThat(report.completedCheckpoints()).containsExactly(1L, 2L, 4L);
    assertThat(report.newestCompleted()).isEqualTo(4);
    assertThat(report.problems()).isEmpty();
    Map<String, CheckpointDirectoryScan.Reason> reasons =
        report.orphans().stream()
            .collect(
                Collectors.toMap(
                    CheckpointDirectoryScan.Orphan::relativePath,
                    CheckpointDirectoryScan.Orphan::reason));
    assertThat(reasons)
        .containsOnly(
            Map.entry(abortedFile, CheckpointDirectoryScan.Reason.INCOMPLETE_CHECKPOINT),
            Map.entry(
                "chk-3/_metadata.inprogress", CheckpointDirectoryScan.Reason.INCOMPLETE_CHECKPOINT),
            Map.entry(strayShared, CheckpointDirectoryScan.Reason.UNREFERENCED_SHARED_FILE),
            Map.entry(
                "chk-2/_metadata.inprogress",
                CheckpointDirectoryScan.Reason.UNREFERENCED_CHECKPOINT_FILE));
    for (CheckpointDirectoryScan.Orphan orphan : report.orphans()) {
      assertThat(orphan.size()).isEqualTo(before.get(orphan.relativePath()));
    }
    assertThat(report.orphanBytes()).isEqualTo(LARGE + LARGE + 2 + 3);
    assertThat(report.kept())
        .extracting(CheckpointDirectoryScan.Kept::relativePath)
        .containsExactlyInAnyOrder(inProgressFile, inProgressShared);
    assertThat(report.referencedFiles()).isEqualTo(referencedByCompleted());
    assertThat(tree()).isEqualTo(before);
  }

  @Test
  void cleanUpDeletesTheOrphansAndKeepsRetainedAndInProgressCheckpoints() throws IOException {
    Map<String, Long> before = tree();

    CheckpointDirectoryScan.Report deleted =
        CheckpointDirectoryScan.cleanUp(storage.jobDirectory());

    Map<String, Long> expected = new TreeMap<>(before);
    deleted.orphans().forEach(o -> expected.remove(o.relativePath()));
    assertThat(deleted.orphans()).hasSize(4);
    assertThat(tree()).isEqualTo(expected);
    assertThat(jobDir().resolve("chk-3")).doesNotExist();
    assertThat(jobDir().resolve(inProgressFile)).exists();
    assertThat(jobDir().resolve(inProgressShared)).exists();
    // Every retained checkpoint is intact and reads back.
    List<String> problems = new ArrayList<>();
    assertThat(storage.loadRetained(problems))
        .extracting(CompletedCheckpoint::checkpointId)
        .containsExactly(4L, 2L, 1L);
    assertThat(problems).isEmpty();
    for (CompletedCheckpoint checkpoint : completed) {
      for (StreamStateHandle handle : handles(checkpoint)) {
        storage.verifyState(handle);
      }
    }
    assertThat(CheckpointDirectoryScan.scan(storage.jobDirectory()).orphans()).isEmpty();
  }

  @Test
  void theStorageDeletesItsOrphansOnRequest() throws IOException {
    storage.discardOrphanedState();

    assertThat(jobDir().resolve(strayShared)).doesNotExist();
    assertThat(jobDir().resolve("chk-3")).doesNotExist();
    assertThat(CheckpointDirectoryScan.scan(storage.jobDirectory()).orphans()).isEmpty();
    assertThat(tree().keySet()).containsAll(referencedByCompleted());
  }

  @Test
  void unreadableMetadataKeepsEverySharedFile() throws IOException {
    Files.write(jobDir().resolve("chk-2/_metadata"), new byte[] {0, 1, 2, 3});

    CheckpointDirectoryScan.Report report = CheckpointDirectoryScan.cleanUp(storage.jobDirectory());

    assertThat(report.problems()).singleElement().asString().contains("chk-2/_metadata");
    assertThat(jobDir().resolve(strayShared)).exists();
    assertThat(jobDir().resolve("chk-2/_metadata.inprogress")).exists();
    assertThat(report.orphans())
        .extracting(CheckpointDirectoryScan.Orphan::relativePath)
        .containsExactlyInAnyOrder(abortedFile, "chk-3/_metadata.inprogress");
  }

  @Test
  void aJobNeverDeletesAnythingOfTheCheckpointItResumedFrom() throws IOException {
    Map<String, Long> before = tree();
    RetainedCheckpoint resumed =
        CompletedCheckpointLocation.load(storage.checkpointDirectory(2).toString(), null);
    FileSystemCheckpointStorage resuming =
        new FileSystemCheckpointStorage(base.toUri(), "fedcba9876543210fedcba9876543210", 100);

    // The location it read from has nothing that writes or deletes; its own storage cleans only
    // its own directory.
    assertThat(resumed.storage()).isNotInstanceOf(CheckpointStorageCoordinatorView.class);
    resuming.discardOrphanedState(true);

    assertThat(tree()).isEqualTo(before);
  }

  @Test
  void aJobDirectoryThatDoesNotExistHasNoOrphans() throws IOException {
    CheckpointDirectoryScan.Report report =
        CheckpointDirectoryScan.scan(base.resolve("no-such-job").toUri());

    assertThat(report.orphans()).isEmpty();
    assertThat(report.completedCheckpoints()).isEmpty();
  }

  // --- the job directory ---

  private StreamStateHandle.File shared(long checkpointId, long seed) throws IOException {
    Path file = local.resolve("sst-" + seed);
    Files.write(file, TestCheckpoints.bytes(LARGE, seed));
    return (StreamStateHandle.File) storage.writeSharedFile(checkpointId, file, "sst " + seed);
  }

  private StreamStateHandle.File file(long checkpointId, long seed) throws IOException {
    return (StreamStateHandle.File)
        storage.writeState(checkpointId, TestCheckpoints.bytes(LARGE, seed), "state " + seed);
  }

  /** Checkpoint {@code id}: the state of {@link TestCheckpoints}, plus an incremental RocksDB. */
  private CompletedCheckpoint commit(long id, List<StreamStateHandle.File> sharedFiles)
      throws IOException {
    CompletedCheckpoint plain = TestCheckpoints.write(storage, id, SMALL, LARGE);
    List<IncrementalKeyedStateHandle.SharedFile> sst = new ArrayList<>();
    for (StreamStateHandle.File f : sharedFiles) {
      sst.add(new IncrementalKeyedStateHandle.SharedFile(f.relativePath() + ".sst", f, false));
    }
    IncrementalKeyedStateHandle rocks =
        new IncrementalKeyedStateHandle(
            KeyGroupRange.of(0, 127),
            "db-1",
            id,
            file(id, id * 1000),
            sst,
            List.of(new IncrementalKeyedStateHandle.PrivateFile("MANIFEST", file(id, id * 1001))));
    List<OperatorState> operators = new ArrayList<>(plain.operators());
    operators.add(
        new OperatorState(
            "rocks-uid",
            "RocksCounter",
            1,
            128,
            List.of(new OperatorSubtaskState(rocks, null, false))));
    CompletedCheckpoint checkpoint =
        new CompletedCheckpoint(JOB_ID, id, plain.timestamp(), false, operators);
    storage.commitCheckpoint(checkpoint);
    return checkpoint;
  }

  private static List<StreamStateHandle> handles(CompletedCheckpoint checkpoint) {
    List<StreamStateHandle> handles = new ArrayList<>();
    for (OperatorState op : checkpoint.operators()) {
      for (OperatorSubtaskState st : op.subtasks()) {
        handles.addAll(st.handles());
      }
    }
    return handles;
  }

  /** What the completed checkpoints reference, their metadata files included. */
  private java.util.Set<String> referencedByCompleted() {
    java.util.Set<String> paths = new java.util.HashSet<>();
    for (CompletedCheckpoint checkpoint : completed) {
      paths.add("chk-" + checkpoint.checkpointId() + "/_metadata");
      for (StreamStateHandle handle : handles(checkpoint)) {
        if (handle instanceof StreamStateHandle.File f) {
          paths.add(f.relativePath());
        }
      }
    }
    return paths;
  }

  /** Every file in the job directory, relative, with its size: an independent listing. */
  private Map<String, Long> tree() throws IOException {
    Map<String, Long> files = new TreeMap<>();
    try (Stream<Path> paths = Files.walk(jobDir())) {
      for (Path p : paths.filter(Files::isRegularFile).toList()) {
        files.put(jobDir().relativize(p).toString().replace('\\', '/'), Files.size(p));
      }
    }
    return files;
  }
}
