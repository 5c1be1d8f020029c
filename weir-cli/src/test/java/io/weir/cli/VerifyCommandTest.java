package io.weir.cli;

import static io.weir.cli.CheckpointFixture.Backend.HEAP;
import static io.weir.cli.CheckpointFixture.Backend.ROCKSDB_INCREMENTAL;
import static org.assertj.core.api.Assertions.assertThat;

import io.weir.cli.CheckpointFixture.Retained;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** {@code weir verify} on checkpoints of real jobs, intact and damaged, and on bad paths. */
@Timeout(120)
class VerifyCommandTest {

  @TempDir Path dir;

  @Test
  void anIntactHeapCheckpointCanBeRestored() throws Exception {
    Retained heap = CheckpointFixture.shared(HEAP);
    List<String> before = CheckpointFixture.snapshotTree(heap.checkpointDir());

    WeirProcess.Result result = WeirProcess.run(dir, "verify", heap.checkpointDir().toString());

    assertThat(result.exitCode()).as(result.toString()).isZero();
    assertThat(result.out())
        .contains("OK, can be restored (checkpoint " + heap.checkpointId())
        .doesNotContain("CANNOT");
    assertThat(CheckpointFixture.snapshotTree(heap.checkpointDir()))
        .as("verify only reads")
        .isEqualTo(before);
  }

  @Test
  void aJobDirectoryOfIncrementalRocksDBCheckpointsIsVerifiedWithItsSharedFiles() throws Exception {
    Retained rocks = CheckpointFixture.shared(ROCKSDB_INCREMENTAL);

    Cli.Result result = Cli.run("verify", rocks.jobDir().toString());

    assertThat(result.exitCode()).as(result.toString()).isZero();
    assertThat(result.out())
        .contains("chk-" + rocks.checkpointId() + ": OK, can be restored")
        .contains("1 of 1 completed checkpoints can be restored");
    assertThat(sharedFiles(rocks.jobDir())).as("the checkpoint has shared SST files").isNotEmpty();
  }

  @Test
  void withAStateBackendItChecksThatTheBackendCanReadTheKeyedState() throws Exception {
    Retained rocks = CheckpointFixture.shared(ROCKSDB_INCREMENTAL);
    Retained heap = CheckpointFixture.shared(HEAP);
    String chk = rocks.checkpointDir().toString();

    Cli.Result onHeap = Cli.run("verify", chk, "--state-backend", "hashmap");
    Cli.Result onRocksDB = Cli.run("verify", chk, "--state-backend", "rocksdb");
    Cli.Result heapOnRocksDB =
        Cli.run("verify", heap.checkpointDir().toString(), "--state-backend", "rocksdb");
    Cli.Result unknown = Cli.run("verify", chk, "--state-backend", "memory");

    assertThat(onHeap.exitCode()).as(onHeap.toString()).isEqualTo(1);
    assertThat(onHeap.out())
        .contains("holds the keyed state of 'counter' as native RocksDB files")
        .contains("which the heap backend cannot read")
        .contains("CANNOT be restored (1 problem)");
    assertThat(onRocksDB.exitCode()).as(onRocksDB.toString()).isZero();
    assertThat(heapOnRocksDB.exitCode()).as(heapOnRocksDB.toString()).isZero();
    assertThat(unknown.exitCode()).isEqualTo(1);
    assertThat(unknown.err()).contains("Unknown state backend 'memory'").contains("rocksdb");
  }

  @Test
  void aFlippedByteInAStateFileIsFlaggedWithTheFileAndANonZeroExitCode() throws Exception {
    Retained copy = CheckpointFixture.copyOf(HEAP, dir);
    Path stateFile = stateFiles(copy.checkpointDir()).get(0);
    CheckpointFixture.flipByte(stateFile);

    WeirProcess.Result result =
        WeirProcess.run(dir, "verify", copy.checkpointDir().resolve("_metadata").toString());

    assertThat(result.exitCode()).as(result.toString()).isEqualTo(1);
    assertThat(result.out())
        .contains("chk-" + copy.checkpointId() + "/" + stateFile.getFileName() + " (")
        .contains("is corrupt (checksum mismatch")
        .contains("CANNOT be restored (1 problem)");
  }

  @Test
  void aFlippedByteInASharedSstFileOfAnIncrementalCheckpointIsFlagged() throws Exception {
    Retained copy = CheckpointFixture.copyOf(ROCKSDB_INCREMENTAL, dir);
    Path shared = sharedFiles(copy.jobDir()).get(0);
    CheckpointFixture.flipByte(shared);

    Cli.Result result = Cli.run("verify", copy.checkpointDir().toString());

    assertThat(result.exitCode()).as(result.toString()).isEqualTo(1);
    assertThat(result.out())
        .contains("shared/" + shared.getFileName())
        .contains("is corrupt")
        .contains("operator 'counter' (counter) subtask ")
        .contains("CANNOT be restored");
  }

  @Test
  void everyMissingFileIsNamed() throws Exception {
    Retained copy = CheckpointFixture.copyOf(ROCKSDB_INCREMENTAL, dir);
    List<Path> shared = sharedFiles(copy.jobDir());
    Files.delete(shared.get(0));
    Path own = stateFiles(copy.checkpointDir()).get(0);
    Files.delete(own);

    WeirProcess.Result result = WeirProcess.run(dir, "verify", copy.jobDir().toString());

    assertThat(result.exitCode()).as(result.toString()).isEqualTo(1);
    assertThat(result.out())
        .contains("shared/" + shared.get(0).getFileName() + " (")
        .contains("chk-" + copy.checkpointId() + "/" + own.getFileName() + " (")
        .contains("is missing")
        .contains("CANNOT be restored (2 problems)")
        .contains("0 of 1 completed checkpoints can be restored");
  }

  @Test
  void filesNoCheckpointRefersToAndIncompleteCheckpointsAreListedButDoNotFailTheVerification()
      throws Exception {
    Retained copy = CheckpointFixture.copyOf(ROCKSDB_INCREMENTAL, dir);
    Files.writeString(copy.jobDir().resolve("shared").resolve("1-stray"), "left behind");
    Path incomplete =
        Files.createDirectory(copy.jobDir().resolve("chk-" + (copy.checkpointId() + 1)));
    Files.writeString(incomplete.resolve("_metadata.inprogress"), "never renamed");

    Cli.Result result = Cli.run("verify", copy.jobDir().toString());

    assertThat(result.exitCode()).as(result.toString()).isZero();
    assertThat(result.out())
        .contains("shared/1-stray: no completed checkpoint refers to it; not needed for a restore")
        .contains(incomplete.getFileName() + ": has no _metadata: it never completed")
        .contains("1 of 1 completed checkpoints can be restored")
        .doesNotContain("shared/" + copy.checkpointId() + "-");
  }

  @Test
  void damagedMetadataIsReported() throws Exception {
    Retained copy = CheckpointFixture.copyOf(HEAP, dir);
    CheckpointFixture.flipByte(copy.checkpointDir().resolve("_metadata"));

    Cli.Result single = Cli.run("verify", copy.checkpointDir().toString());
    Cli.Result job = Cli.run("verify", copy.jobDir().toString());

    assertThat(single.exitCode()).as(single.toString()).isEqualTo(1);
    assertThat(single.err()).contains("_metadata is corrupt: checksum mismatch");
    assertThat(job.exitCode()).as(job.toString()).isEqualTo(1);
    assertThat(job.out())
        .contains("chk-" + copy.checkpointId() + ": ")
        .contains("_metadata is corrupt: checksum mismatch")
        .contains("CANNOT be restored");
  }

  @Test
  void aPathThatDoesNotExistIsAClearErrorAndNothingIsWritten() throws Exception {
    Path missing = dir.resolve("no-such-checkpoint");

    WeirProcess.Result result = WeirProcess.run(dir, "verify", missing.toString());

    assertThat(result.exitCode()).as(result.toString()).isEqualTo(1);
    assertThat(result.err())
        .contains("weir verify: " + missing + " does not exist")
        .contains("chk-<n> directory")
        .doesNotContain("\tat ");
    assertThat(result.out()).isEmpty();
    assertThat(missing).doesNotExist();
    try (Stream<Path> files = Files.list(dir)) {
      assertThat(files).as("nothing written").isEmpty();
    }
  }

  @Test
  void aPathThatIsNoCheckpointIsAClearError() throws Exception {
    Path notes = Files.writeString(dir.resolve("notes.txt"), "not a checkpoint");
    Path empty = Files.createDirectory(dir.resolve("empty"));
    List<String> before = CheckpointFixture.snapshotTree(dir);

    Cli.Result file = Cli.run("verify", notes.toString());
    Cli.Result directory = Cli.run("verify", empty.toString());

    assertThat(file.exitCode()).as(file.toString()).isEqualTo(1);
    assertThat(file.err())
        .contains(notes.toString())
        .contains("is not a Weir checkpoint metadata file");
    assertThat(directory.exitCode()).as(directory.toString()).isEqualTo(1);
    assertThat(directory.err())
        .contains("has no _metadata file, so it is not a completed Weir checkpoint");
    assertThat(CheckpointFixture.snapshotTree(dir)).as("nothing written").isEqualTo(before);
  }

  @Test
  void withoutAPathTheUsageIsShownWithExitCode2() {
    Cli.Result result = Cli.run("verify");

    assertThat(result.exitCode()).isEqualTo(2);
    assertThat(result.err()).contains("Missing required parameter: 'PATH'");
  }

  static List<Path> sharedFiles(Path jobDir) throws Exception {
    Path shared = jobDir.resolve("shared");
    if (!Files.isDirectory(shared)) {
      return List.of();
    }
    try (Stream<Path> files = Files.list(shared)) {
      return files.sorted().toList();
    }
  }

  static List<Path> stateFiles(Path checkpointDir) throws Exception {
    try (Stream<Path> files = Files.list(checkpointDir)) {
      return files
          // Not _metadata, nor the _history beside it, which no restore reads: flipping a byte
          // of that one is rightly no problem for 'weir verify'.
          .filter(p -> !p.getFileName().toString().startsWith("_"))
          .sorted()
          .toList();
    }
  }
}
