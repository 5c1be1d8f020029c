package io.weir.runtime.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.weir.api.StreamEnvironment;
import io.weir.api.config.Configuration;
import io.weir.api.sink.DiscardingSink;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A misspelled key of Weir's namespaces fails the submission instead of being ignored. */
class UnknownKeyTest {

  @TempDir Path dir;

  @Test
  void aMisspelledKeyInYamlFailsTheSubmissionNamingTheNearestKey() throws Exception {
    Path yaml = dir.resolve("weir.yaml");
    Files.writeString(
        yaml, "execution.checkpointing.interval: 100 ms\nexecution.checkpointing.num-retaind: 3\n");
    StreamEnvironment env = StreamEnvironment.create(Configuration.fromYaml(yaml));
    env.fromSequence(1, 10).sinkTo(new DiscardingSink<>());

    Throwable error = catchThrowable(() -> env.execute("misspelled"));

    assertThat(error)
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("execution.checkpointing.num-retaind")
        .hasMessageContaining("did you mean 'execution.checkpointing.num-retained'?");
  }
}
