package io.weir.state.rocksdb;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * RocksDB's native library is extracted once per library version into a stable directory, not once
 * per process: processes that load it, including ones killed with SIGKILL, leave exactly one copy
 * behind, and nothing in {@code java.io.tmpdir}.
 */
@Timeout(120)
class NativeLibraryExtractionTest {

  @TempDir Path dir;

  /** Runs {@link NativeLibraryProbe} in a child JVM and returns what it printed. */
  static String probe(Path nativeDir, Path tmpDir) throws Exception {
    Process process = start(nativeDir, tmpDir, NativeLibraryProbe.class.getName());
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
    return output;
  }

  private static Process start(Path nativeDir, Path tmpDir, String mainClass) throws IOException {
    Files.createDirectories(tmpDir);
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    Process process =
        new ProcessBuilder(
                List.of(
                    java,
                    "-Xmx64m",
                    "-Djava.io.tmpdir=" + tmpDir,
                    "-Dstate.backend.rocksdb.native-library.dir=" + nativeDir,
                    "-cp",
                    System.getProperty("java.class.path"),
                    mainClass))
            .redirectErrorStream(true)
            .start();
    process.getOutputStream().close();
    return process;
  }

  /** Loads the library, says so, then waits to be killed. */
  public static final class LoadAndWait {
    private LoadAndWait() {}

    public static void main(String[] args) throws Exception {
      NativeLibraryProbe.main(args);
      System.out.flush();
      new java.util.concurrent.CountDownLatch(1).await(); // until killed
    }
  }

  private static List<Path> filesBelow(Path root) throws IOException {
    try (Stream<Path> files = Files.walk(root)) {
      return files.filter(Files::isRegularFile).toList();
    }
  }

  @Test
  void killedAndCleanProcessesShareOneExtractedCopy() throws Exception {
    Path nativeDir = dir.resolve("native");
    Path tmp = dir.resolve("tmp");

    for (int i = 0; i < 3; i++) {
      Process process = start(nativeDir, tmp, LoadAndWait.class.getName());
      String first = new String(process.getInputStream().readNBytes(7), StandardCharsets.UTF_8);
      assertThat(first).isEqualTo("LOADED ");
      process.destroyForcibly(); // SIGKILL: no shutdown hook, no deleteOnExit
      assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
    }
    assertThat(probe(nativeDir, tmp)).startsWith("LOADED ");

    List<Path> libraries = filesBelow(nativeDir);
    assertThat(libraries).hasSize(1);
    assertThat(libraries.get(0).getFileName().toString()).startsWith("librocksdbjni");
    assertThat(Files.size(libraries.get(0))).isGreaterThan(1_000_000);
    assertThat(filesBelow(tmp)).as("nothing extracted to java.io.tmpdir").isEmpty();
  }
}
