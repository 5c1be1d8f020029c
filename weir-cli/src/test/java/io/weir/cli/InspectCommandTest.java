package io.weir.cli;

import static io.weir.cli.CheckpointFixture.Backend.HEAP;
import static io.weir.cli.CheckpointFixture.Backend.ROCKSDB_CANONICAL_FULL;
import static io.weir.cli.CheckpointFixture.Backend.ROCKSDB_INCREMENTAL;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.weir.cli.CheckpointFixture.Last;
import io.weir.cli.CheckpointFixture.Retained;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** {@code weir inspect} and {@code --dump} on checkpoints of real jobs, heap and RocksDB. */
@Timeout(120)
class InspectCommandTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;

  @Test
  void showsOperatorsSubtasksKeyGroupsStatesAndSourceSplitsOfAHeapCheckpoint() throws Exception {
    Retained heap = CheckpointFixture.shared(HEAP);

    WeirProcess.Result result =
        WeirProcess.run(
            dir,
            "inspect",
            heap.checkpointDir().toString(),
            "--classpath",
            WeirProcess.TEST_CLASSES.toString());

    assertThat(result.exitCode()).as(result.toString()).isZero();
    assertThat(result.out())
        .contains("Checkpoint " + heap.checkpointId())
        .contains("job id      " + heap.jobDir().getFileName())
        .contains(
            "Operator 'counter'\n  uid/id           counter\n  parallelism      2\n"
                + "  max parallelism  128")
        .contains("subtask 0: keyed state, canonical key groups 0-63")
        .contains("subtask 1: keyed state, canonical key groups 64-127")
        .contains("key serializer LongSerializer")
        .contains("state 'count' VALUE, value serializer LongSerializer")
        .contains(
            "state 'last' VALUE, value serializer RecordSerializer (Last(key: long serializer,"
                + " count: long serializer, label: string serializer))")
        .contains("bytes per key group:")
        .contains("Operator 'numbers'\n  uid/id           source")
        .contains("subtask 0: source splits, 1 split, 0 split watermarks, ")
        .doesNotContain("_source_splits");
  }

  @Test
  void withoutTheJobsClassesItSaysToGiveThem() throws Exception {
    Retained heap = sharedHeap();

    // A child process: in this JVM the test classes are on the class path.
    WeirProcess.Result result = WeirProcess.run(dir, "inspect", heap.checkpointDir().toString());

    assertThat(result.exitCode()).as(result.toString()).isZero();
    assertThat(result.out())
        .contains("canonical key groups 0-63")
        .contains(Last.class.getName())
        .contains("give the job's jar with --classpath");
  }

  @Test
  void dumpRoundTripsWhatTheHeapJobWrote() throws Exception {
    Retained heap = CheckpointFixture.shared(HEAP);

    WeirProcess.Result counts =
        WeirProcess.run(
            dir,
            "inspect",
            heap.checkpointDir().toString(),
            "--dump",
            "count",
            "--classpath",
            WeirProcess.TEST_CLASSES.toString());
    WeirProcess.Result last =
        WeirProcess.run(
            dir,
            "inspect",
            heap.checkpointDir().toString(),
            "--dump",
            "last",
            "--classpath",
            WeirProcess.TEST_CLASSES.toString());

    assertThat(counts.exitCode()).as(counts.toString()).isZero();
    assertThat(countsOf(counts.out())).isEqualTo(CheckpointFixture.expectedCounts());
    assertThat(last.exitCode()).as(last.toString()).isZero();
    assertThat(lastsOf(last.out())).isEqualTo(expectedLasts());
  }

  @Test
  void dumpRoundTripsACanonicalFullRocksDBCheckpoint() throws Exception {
    Retained rocks = CheckpointFixture.shared(ROCKSDB_CANONICAL_FULL);
    String cp = WeirProcess.TEST_CLASSES.toString();

    Cli.Result inspect = Cli.run("inspect", rocks.checkpointDir().toString(), "-cp", cp);
    Cli.Result counts =
        Cli.run("inspect", rocks.checkpointDir().toString(), "--dump", "count", "-cp", cp);
    Cli.Result last =
        Cli.run(
            "inspect",
            rocks.checkpointDir().toString(),
            "--dump",
            "last",
            "--operator",
            "counter",
            "-cp",
            cp);

    assertThat(inspect.out())
        .contains("canonical key groups 0-63")
        .contains("state 'count' VALUE")
        .contains("bytes per key group:");
    assertThat(counts.exitCode()).as(counts.toString()).isZero();
    assertThat(countsOf(counts.out())).isEqualTo(CheckpointFixture.expectedCounts());
    assertThat(last.exitCode()).as(last.toString()).isZero();
    assertThat(lastsOf(last.out())).isEqualTo(expectedLasts());
  }

  @Test
  void showsTheNativeFilesOfAnIncrementalRocksDBCheckpointAndRefusesToDumpThem() throws Exception {
    Retained rocks = CheckpointFixture.shared(ROCKSDB_INCREMENTAL);
    String cp = WeirProcess.TEST_CLASSES.toString();

    Cli.Result inspect = Cli.run("inspect", rocks.checkpointDir().toString(), "-cp", cp);
    Cli.Result dump =
        Cli.run("inspect", rocks.checkpointDir().toString(), "--dump", "count", "-cp", cp);

    assertThat(inspect.exitCode()).as(inspect.toString()).isZero();
    assertThat(inspect.out())
        .contains("keyed state, native RocksDB files of checkpoint")
        .contains(".sst")
        .contains("(file shared/")
        .contains("state 'count' VALUE, value serializer LongSerializer")
        .contains("state 'last' VALUE");
    assertThat(dump.exitCode()).as(dump.toString()).isEqualTo(1);
    assertThat(dump.err())
        .contains("Keyed state 'count' of operator 'counter' is in native RocksDB files")
        .contains("full-format: canonical");
    assertThat(dump.out()).isEmpty();
  }

  @Test
  void anUnknownStateIsAnErrorThatListsTheStates() {
    Retained heap = sharedHeap();

    Cli.Result result =
        Cli.run(
            "inspect",
            heap.checkpointDir().toString(),
            "--dump",
            "nope",
            "-cp",
            WeirProcess.TEST_CLASSES.toString());

    assertThat(result.exitCode()).as(result.toString()).isEqualTo(1);
    assertThat(result.err())
        .contains("has no keyed state 'nope'")
        .contains("'count' of counter")
        .contains("'last' of counter");
    assertThat(result.out()).isEmpty();
  }

  @Test
  void badPathsAreClearErrorsAndNothingIsWritten() throws Exception {
    Retained heap = sharedHeap();
    Path missing = dir.resolve("gone");
    Path notes = Files.writeString(dir.resolve("notes.txt"), "hello");
    List<String> before = CheckpointFixture.snapshotTree(dir);

    WeirProcess.Result gone = WeirProcess.run(dir, "inspect", missing.toString());
    Cli.Result text = Cli.run("inspect", notes.toString());
    Cli.Result jobDir = Cli.run("inspect", heap.jobDir().toString());
    Cli.Result badClasspath =
        Cli.run("inspect", heap.checkpointDir().toString(), "-cp", missing.toString());

    assertThat(gone.exitCode()).as(gone.toString()).isEqualTo(1);
    assertThat(gone.err()).contains("weir inspect: " + missing + " does not exist");
    assertThat(text.exitCode()).isEqualTo(1);
    assertThat(text.err()).contains("is not a Weir checkpoint metadata file");
    assertThat(jobDir.exitCode()).isEqualTo(1);
    assertThat(jobDir.err())
        .contains("is a job's checkpoint directory: give one of its checkpoints")
        .contains("chk-" + heap.checkpointId());
    assertThat(badClasspath.exitCode()).isEqualTo(1);
    assertThat(badClasspath.err()).contains("--classpath entry " + missing + " does not exist");
    assertThat(CheckpointFixture.snapshotTree(dir)).as("nothing written").isEqualTo(before);
  }

  private static Retained sharedHeap() {
    try {
      return CheckpointFixture.shared(HEAP);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private static Map<Long, Long> countsOf(String jsonLines) throws Exception {
    Map<Long, Long> counts = new TreeMap<>();
    for (String line : jsonLines.lines().toList()) {
      JsonNode node = JSON.readTree(line);
      counts.put(node.get("key").asLong(), node.get("value").asLong());
    }
    return counts;
  }

  private static Map<Long, Last> lastsOf(String jsonLines) throws Exception {
    Map<Long, Last> lasts = new TreeMap<>();
    for (String line : jsonLines.lines().toList()) {
      JsonNode node = JSON.readTree(line);
      lasts.put(node.get("key").asLong(), JSON.treeToValue(node.get("value"), Last.class));
    }
    return lasts;
  }

  private static Map<Long, Last> expectedLasts() {
    Map<Long, Last> lasts = new TreeMap<>();
    CheckpointFixture.expectedCounts()
        .forEach((key, count) -> lasts.put(key, CheckpointFixture.expectedLast(key, count)));
    return lasts;
  }
}
