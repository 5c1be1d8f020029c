package io.weir.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.opentelemetry.proto.trace.v1.Span;
import io.weir.cluster.testing.OtlpCollector;
import java.nio.file.Path;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code weir run} on its local session cluster, in this JVM. */
class RunCommandTest {

  @TempDir Path dir;

  @Test
  void theLocalSessionClusterSendsItsJobsCheckpointSpansToTheCollectorGivenWithD()
      throws Exception {
    Path jar = TestJars.jobJar(dir.resolve("jobs.jar"), null);
    try (OtlpCollector collector = OtlpCollector.start()) {
      // A bounded job that checkpoints: it finishes once its final checkpoint completed.
      Cli.Result run =
          Cli.runCapturingSystemStreams(
              "run",
              "-D",
              "traces.reporter.otel.exporter.endpoint=" + collector.endpoint(),
              "-D",
              "traces.reporter.otel.service.name=weir-run-test",
              "-D",
              "execution.checkpointing.interval=100 ms",
              "-c",
              "com.example.weirtest.FailingJob",
              jar.toString(),
              "--records",
              "3");
      assertThat(run.exitCode()).as(run.toString()).isZero();
      Matcher id = Pattern.compile("JobID ([0-9a-f]{32})").matcher(run.out());
      assertThat(id.find()).as(run.toString()).isTrue();
      String jobId = id.group(1);

      Span checkpoint =
          collector.awaitSpan(
              s ->
                  s.getName().equals("Checkpoint")
                      && jobId.equals(OtlpCollector.attributes(s).get("jobId")),
              Duration.ofSeconds(60));
      assertThat(OtlpCollector.attributes(checkpoint))
          .containsEntry("jobName", "failing-job")
          .containsEntry("checkpointStatus", "COMPLETED");
      assertThat(collector.serviceNames()).contains("weir-run-test");
      // A lane per subtask under it, as the JobManager of a cluster sends them.
      assertThat(collector.spans())
          .anyMatch(s -> s.getParentSpanId().equals(checkpoint.getSpanId()));
    }
  }
}
