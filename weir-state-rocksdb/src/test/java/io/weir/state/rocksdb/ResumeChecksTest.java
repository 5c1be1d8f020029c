package io.weir.state.rocksdb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

import io.weir.api.CheckpointStatistics;
import io.weir.api.ExternalizedCheckpointRetention;
import io.weir.api.JobClient;
import io.weir.api.RestartStrategy;
import io.weir.api.StreamEnvironment;
import io.weir.api.config.CheckpointingOptions;
import io.weir.api.functions.Collector;
import io.weir.api.functions.KeyedProcessFunction;
import io.weir.api.functions.OpenContext;
import io.weir.api.sink.DiscardingSink;
import io.weir.api.state.ValueState;
import io.weir.api.state.ValueStateDescriptor;
import io.weir.api.typeutils.Types;
import io.weir.runtime.api.UnboundedSource;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Resuming ({@code execution.state-recovery.path}) from an incremental RocksDB checkpoint is
 * checked before any task runs: a backend that cannot read it, or a corrupt shared SST file, fails
 * the submission at once, naming the checkpoint, the operator and the file, instead of restarting
 * forever from the same bad checkpoint; a job's checkpoint directory resumes from its newest
 * checkpoint whose state files verify.
 */
@Timeout(120)
class ResumeChecksTest {

  static final int KEYS = 200;

  @TempDir Path dir;

  static final class Counter extends KeyedProcessFunction<Long, Long, Long> {
    private static final long serialVersionUID = 1L;
    private transient ValueState<Long> count;

    @Override
    public void open(OpenContext openContext) {
      count = getRuntimeContext().getState(new ValueStateDescriptor<>("count", Types.LONG));
    }

    @Override
    public void processElement(Long value, Context ctx, Collector<Long> out) throws Exception {
      Long c = count.value();
      count.update(c == null ? 1 : c + 1);
    }
  }

  private static void pipeline(StreamEnvironment env) {
    env.fromSource(UnboundedSource.endless(0), "numbers", Types.LONG)
        .uid("numbers")
        .keyBy(v -> v % KEYS, Types.LONG)
        .process(new Counter())
        .uid("counter")
        .name("counter")
        .sinkTo(new DiscardingSink<>());
  }

  /** Runs an incremental RocksDB job until three checkpoints completed, cancels, keeps them. */
  private Path retainedJobDirectory() throws Exception {
    StreamEnvironment env = StreamEnvironment.create();
    env.setParallelism(1);
    env.setStateBackend(
        new EmbeddedRocksDBStateBackend(true).setDbStoragePaths(dir.resolve("local").toString()));
    env.enableCheckpointing(Duration.ofMillis(100));
    env.getCheckpointConfig()
        .setCheckpointStorage(dir.resolve("checkpoints").toUri().toString())
        .setNumRetainedCheckpoints(3)
        .setExternalizedCheckpointRetention(ExternalizedCheckpointRetention.RETAIN_ON_CANCELLATION);
    env.getConfiguration().setString("execution.checkpointing.data-inline-threshold", "0 b");
    pipeline(env);
    JobClient client = env.executeAsync("first");
    await()
        .atMost(Duration.ofSeconds(60))
        .until(
            () ->
                client.getCheckpointStatistics().stream()
                        .filter(s -> s.status() == CheckpointStatistics.Status.COMPLETED)
                        .count()
                    >= 3);
    client.cancel().get();
    try (Stream<Path> dirs = Files.list(dir.resolve("checkpoints"))) {
      return dirs.findFirst().orElseThrow();
    }
  }

  private static List<Path> checkpoints(Path jobDir) throws IOException {
    try (Stream<Path> list = Files.list(jobDir)) {
      return list.filter(p -> p.getFileName().toString().startsWith("chk-"))
          .sorted((a, b) -> Long.compare(id(b), id(a)))
          .toList();
    }
  }

  private static long id(Path checkpointDir) {
    return Long.parseLong(checkpointDir.getFileName().toString().substring(4));
  }

  /** Flips a byte in the middle of every shared file that checkpoint {@code id} uploaded. */
  private static List<Path> corruptSharedFilesOf(Path jobDir, long id) throws IOException {
    List<Path> files;
    try (Stream<Path> list = Files.list(jobDir.resolve("shared"))) {
      files = list.filter(f -> f.getFileName().toString().startsWith(id + "-")).toList();
    }
    for (Path f : files) {
      try (RandomAccessFile file = new RandomAccessFile(f.toFile(), "rw")) {
        long at = file.length() / 2;
        file.seek(at);
        int b = file.read();
        file.seek(at);
        file.write(b ^ 0xff);
      }
    }
    return files;
  }

  private StreamEnvironment resumed(String backend, String path) {
    StreamEnvironment env = StreamEnvironment.create();
    env.setParallelism(1);
    env.getConfiguration().setString("state.backend.type", backend);
    env.getConfiguration()
        .setString("state.backend.rocksdb.localdir", dir.resolve("local2").toString());
    env.enableCheckpointing(Duration.ofMillis(100));
    env.getCheckpointConfig().setCheckpointStorage(dir.resolve("resumed").toUri().toString());
    env.setRestartStrategy(RestartStrategy.exponentialDelay()); // unlimited restarts
    env.getConfiguration().set(CheckpointingOptions.SAVEPOINT_PATH, path);
    return env;
  }

  @Test
  void anIncrementalCheckpointResumedOnTheHeapFailsTheSubmission() throws Exception {
    Path newest = checkpoints(retainedJobDirectory()).get(0);
    StreamEnvironment env = resumed("hashmap", newest.toUri().toString());
    pipeline(env);

    Throwable error = catchThrowable(() -> env.executeAsync("on-the-heap"));

    assertThat(error)
        .as("refused before any task runs, not restarting forever")
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("Checkpoint " + id(newest))
        .hasMessageContaining("'counter'")
        .hasMessageContaining("state.backend.type: rocksdb");
  }

  @Test
  void aCorruptSharedFileOfTheCheckpointResumedFromFailsTheSubmissionNamingIt() throws Exception {
    Path jobDir = retainedJobDirectory();
    Path newest = checkpoints(jobDir).get(0);
    List<Path> corrupted = corruptSharedFilesOf(jobDir, id(newest));
    // The newest checkpoint may reuse every file of an older one; then corrupt those it uses.
    for (Path older : checkpoints(jobDir)) {
      if (!corrupted.isEmpty()) {
        break;
      }
      corrupted = corruptSharedFilesOf(jobDir, id(older));
    }
    assertThat(corrupted).isNotEmpty();
    StreamEnvironment env = resumed("rocksdb", newest.toUri().toString());
    pipeline(env);

    Throwable error = catchThrowable(() -> env.executeAsync("from-corrupt"));

    assertThat(error)
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("Checkpoint " + id(newest))
        .hasMessageContaining("'counter'")
        .hasMessageContaining("shared/")
        .hasMessageContaining("corrupt");
  }

  @Test
  void aJobDirectoryResumesFromTheNewestCheckpointWhoseFilesVerify() throws Exception {
    Path jobDir = retainedJobDirectory();
    List<Path> all = checkpoints(jobDir);
    Path newest = all.get(0);
    // Damage a file only the newest checkpoint uses: its own operator state or its newest SSTs.
    List<Path> corrupted = corruptSharedFilesOf(jobDir, id(newest));
    if (corrupted.isEmpty()) {
      try (Stream<Path> own = Files.list(newest)) {
        Path file =
            own.filter(f -> !f.getFileName().toString().startsWith("_")).findFirst().orElseThrow();
        corrupted = List.of(file);
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
          f.seek(0);
          int b = f.read();
          f.seek(0);
          f.write(b ^ 0xff);
        }
      }
    }
    StreamEnvironment env = resumed("rocksdb", jobDir.toUri().toString());
    pipeline(env);

    JobClient client = env.executeAsync("from-directory");
    await()
        .atMost(Duration.ofSeconds(60))
        .until(
            () ->
                client.getCheckpointStatistics().stream()
                    .anyMatch(s -> s.status() == CheckpointStatistics.Status.COMPLETED));
    client.cancel().get();
    assertThat(client.getCheckpointStatistics().get(0).checkpointId())
        .as(
            "the resumed job continues the ids of the checkpoint it restored, older than the newest")
        .isLessThanOrEqualTo(id(newest));
  }
}
