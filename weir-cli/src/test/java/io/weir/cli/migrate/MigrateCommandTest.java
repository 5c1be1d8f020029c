package io.weir.cli.migrate;

import static org.assertj.core.api.Assertions.assertThat;

import io.weir.cli.WeirCli;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code weir migrate}: in place, into --output, --dry-run, and its errors. */
class MigrateCommandTest {

  static final String JOB =
      """
      package com.example;

      import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
      import org.apache.flink.util.MultipleParameterTool;

      public class Job {
        public static void main(String[] args) throws Exception {
          StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
          env.fromData(1, 2, 3).print();
          env.execute();
        }
      }
      """;

  @TempDir Path tmp;
  Path src;
  Path job;

  @BeforeEach
  void writeJob() throws Exception {
    src = tmp.resolve("src");
    job = src.resolve("com/example/Job.java");
    Files.createDirectories(job.getParent());
    Files.writeString(job, JOB);
  }

  @Test
  void rewritesInPlaceAndListsWhatIsLeft() throws Exception {
    MigratedSources.Run run = MigratedSources.weir("migrate", src.toString());

    assertThat(run.exitCode()).as(run.toString()).isZero();
    assertThat(Files.readString(job))
        .contains("import io.weir.api.StreamEnvironment;")
        .contains("StreamEnvironment env = StreamEnvironment.create();")
        .contains("import org.apache.flink.util.MultipleParameterTool;");
    assertThat(run.out())
        .contains("Migrated 1 of 1 Java files (4 changes) in place.")
        .contains("To do by hand (1):")
        .contains(
            src.resolve("com/example/Job.java")
                + ":4: org.apache.flink.util.MultipleParameterTool:");
  }

  @Test
  void dryRunPrintsADiffAndWritesNothing() throws Exception {
    MigratedSources.Run run = MigratedSources.weir("migrate", "--dry-run", src.toString());

    assertThat(run.exitCode()).as(run.toString()).isZero();
    assertThat(Files.readString(job)).isEqualTo(JOB);
    assertThat(run.out())
        .contains("--- a/com/example/Job.java\n+++ b/com/example/Job.java\n@@ -1,")
        .contains(
            "-import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;\n"
                + "+import io.weir.api.StreamEnvironment;\n")
        .contains("(dry run: nothing written)");
  }

  @Test
  void outputGetsTheWholeTreeAndTheSourcesStay() throws Exception {
    Files.writeString(src.resolve("notes.txt"), "kept");
    Path out = tmp.resolve("out");

    MigratedSources.Run run =
        MigratedSources.weir("migrate", src.toString(), "--output", out.toString());

    assertThat(run.exitCode()).as(run.toString()).isZero();
    assertThat(Files.readString(job)).isEqualTo(JOB);
    assertThat(Files.readString(out.resolve("com/example/Job.java")))
        .contains("StreamEnvironment.create()");
    assertThat(out.resolve("notes.txt")).hasContent("kept");
  }

  @Test
  void aPomWithFlinkDependenciesIsListed() throws Exception {
    Files.writeString(
        src.resolve("pom.xml"),
        "<project>\n  <dependency>\n    <groupId>org.apache.flink</groupId>\n  </dependency>\n</project>\n");

    MigratedSources.Run run = MigratedSources.weir("migrate", "--dry-run", src.toString());

    assertThat(run.out())
        .contains(src.resolve("pom.xml") + ":3: a Flink artifact: depend on io.weir:weir-api");
  }

  @Test
  void aMissingDirectoryIsRefused() {
    MigratedSources.Run run = MigratedSources.weir("migrate", tmp.resolve("nope").toString());

    assertThat(run.exitCode()).isEqualTo(WeirCli.EXIT_FAILURE);
    assertThat(run.err())
        .startsWith("weir migrate: " + tmp.resolve("nope") + ": no such directory\n")
        .doesNotContain("\tat ");
  }

  @Test
  void aFileInsteadOfADirectoryIsRefused() {
    MigratedSources.Run run = MigratedSources.weir("migrate", job.toString());

    assertThat(run.exitCode()).isEqualTo(WeirCli.EXIT_FAILURE);
    assertThat(run.err())
        .contains(job + ": not a directory; give the directory that holds the job's sources");
  }

  @Test
  void aFileThatDoesNotParseIsNamedWithItsLineAndNothingIsWritten() throws Exception {
    Files.writeString(
        src.resolve("Broken.java"), "class Broken {\n  void m() {\n    int x = ;\n  }\n}\n");

    MigratedSources.Run run = MigratedSources.weir("migrate", src.toString());

    assertThat(run.exitCode()).isEqualTo(WeirCli.EXIT_FAILURE);
    assertThat(run.err())
        .startsWith("weir migrate: Broken.java:3:")
        .contains("cannot be parsed as Java 17");
    assertThat(run.err()).doesNotContain("\tat ");
    assertThat(Files.readString(job)).isEqualTo(JOB);
  }

  @Test
  void aNonEmptyOutputDirectoryIsRefused() throws Exception {
    Path out = Files.createDirectories(tmp.resolve("out"));
    Files.writeString(out.resolve("x"), "");

    MigratedSources.Run run = MigratedSources.weir("migrate", src.toString(), "-o", out.toString());

    assertThat(run.exitCode()).isEqualTo(WeirCli.EXIT_FAILURE);
    assertThat(run.err()).contains(out + ": not empty; give a new or empty directory");
  }

  @Test
  void aDirectoryWithoutJavaFilesIsRefused() throws Exception {
    Path empty = Files.createDirectories(tmp.resolve("empty"));

    MigratedSources.Run run = MigratedSources.weir("migrate", empty.toString());

    assertThat(run.exitCode()).isEqualTo(WeirCli.EXIT_FAILURE);
    assertThat(run.err()).contains(empty + ": holds no .java files");
  }

  /** The real ./weir launcher in a child process, as a user runs it. */
  @Test
  void theWeirLauncherRunsItInAChildProcess() throws Exception {
    Path root = Path.of("").toAbsolutePath().getParent();
    Path out = tmp.resolve("child.out");
    Path err = tmp.resolve("child.err");
    List<String> command =
        new ArrayList<>(List.of(root.resolve("weir").toString(), "migrate", src.toString()));
    ProcessBuilder builder =
        new ProcessBuilder(command)
            .redirectOutput(out.toFile())
            .redirectError(err.toFile())
            .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
    builder.environment().put("WEIR_SKIP_BUILD", "1");
    Process process = builder.start();
    assertThat(process.waitFor(90, TimeUnit.SECONDS)).isTrue();

    assertThat(process.exitValue()).as(Files.readString(err)).isZero();
    assertThat(Files.readString(out, StandardCharsets.UTF_8))
        .contains("Migrated 1 of 1 Java files");
    assertThat(Files.readString(job)).contains("StreamEnvironment.create()");

    builder.command(root.resolve("weir").toString(), "migrate", tmp.resolve("nope").toString());
    Process missing = builder.start();
    assertThat(missing.waitFor(90, TimeUnit.SECONDS)).isTrue();
    assertThat(missing.exitValue()).isEqualTo(WeirCli.EXIT_FAILURE);
    assertThat(Files.readString(err)).contains("no such directory").doesNotContain("\tat ");
  }
}
