package io.weir.state.rocksdb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.weir.api.RestartStrategy;
import io.weir.api.StreamEnvironment;
import io.weir.api.sink.DiscardingSink;
import io.weir.api.typeutils.Types;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * What can be checked before any task runs is checked then: a RocksDB local directory that cannot
 * be created fails the submission, naming the directory and the key, instead of failing every task
 * of every attempt under an unlimited restart strategy.
 */
@Timeout(60)
class RocksDBSubmissionChecksTest {

  @TempDir Path dir;

  @Test
  void aLocalDirectoryBelowARegularFileFailsTheSubmission() throws Exception {
    Path file = Files.writeString(dir.resolve("a-file"), "not a directory");
    StreamEnvironment env = StreamEnvironment.create();
    env.setParallelism(1);
    env.enableCheckpointing(Duration.ofMillis(100));
    env.setRestartStrategy(RestartStrategy.exponentialDelay()); // would restart forever
    env.getConfiguration().setString("state.backend.type", "rocksdb");
    env.getConfiguration()
        .setString("state.backend.rocksdb.localdir", file.resolve("db").toString());
    env.fromSequence(1, 100)
        .keyBy(v -> v % 3, Types.LONG)
        .reduce(Long::sum)
        .sinkTo(new DiscardingSink<>());

    Throwable error = catchThrowable(() -> env.executeAsync("bad-local-dir"));

    assertThat(error)
        .hasMessageContaining(file.resolve("db").toString())
        .hasMessageContaining("state.backend.rocksdb.localdir");
  }
}
