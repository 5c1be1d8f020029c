package io.weir.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs the real {@code ./weir} launcher of the repository in a child process, on what this build
 * compiled ({@code WEIR_SKIP_BUILD=1}: the launcher does not rebuild).
 */
final class WeirProcess {

  /** What the process wrote and how it ended. */
  record Result(int exitCode, String out, String err) {
    @Override
    public String toString() {
      return "exit " + exitCode + "\n--- stdout\n" + out + "--- stderr\n" + err;
    }
  }

  /** The repository root: surefire runs in weir-cli. */
  static final Path ROOT = Path.of("").toAbsolutePath().getParent();

  /** The CLI's test classes, for {@code --classpath}: the fixture's user types live there. */
  static final Path TEST_CLASSES = Path.of("target", "test-classes").toAbsolutePath();

  private WeirProcess() {}

  /** A {@code ./weir} process started in the background, writing to {@code out} and {@code err}. */
  record Started(Process process, Path outFile, Path errFile) {
    String out() throws IOException {
      return Files.readString(outFile, StandardCharsets.UTF_8);
    }

    String err() throws IOException {
      return Files.readString(errFile, StandardCharsets.UTF_8);
    }
  }

  /** Starts {@code ./weir args} without waiting for it. */
  static Started start(Path workingDir, String... args) throws IOException {
    List<String> command = new ArrayList<>();
    command.add(ROOT.resolve("weir").toString());
    command.addAll(List.of(args));
    Path out = Files.createTempFile(workingDir, "weir-out", ".txt");
    Path err = Files.createTempFile(workingDir, "weir-err", ".txt");
    ProcessBuilder builder =
        new ProcessBuilder(command)
            .directory(workingDir.toFile())
            .redirectOutput(out.toFile())
            .redirectError(err.toFile())
            .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
    builder.environment().put("WEIR_SKIP_BUILD", "1");
    return new Started(builder.start(), out, err);
  }

  static Result run(Path workingDir, String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    command.add(ROOT.resolve("weir").toString());
    command.addAll(List.of(args));
    Path out = Files.createTempFile("weir-out", ".txt");
    Path err = Files.createTempFile("weir-err", ".txt");
    try {
      ProcessBuilder builder =
          new ProcessBuilder(command)
              .directory(workingDir.toFile())
              .redirectOutput(out.toFile())
              .redirectError(err.toFile())
              .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
      builder.environment().put("WEIR_SKIP_BUILD", "1");
      Process process = builder.start();
      if (!process.waitFor(90, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        throw new IllegalStateException("./weir " + String.join(" ", args) + " did not end");
      }
      return new Result(
          process.exitValue(),
          Files.readString(out, StandardCharsets.UTF_8),
          Files.readString(err, StandardCharsets.UTF_8));
    } finally {
      Files.deleteIfExists(out);
      Files.deleteIfExists(err);
    }
  }
}
