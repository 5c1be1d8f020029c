package io.weir.cluster.client;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The checks of a job jar before anything runs it, each naming the jar as the user gave it. */
class JobJarsTest {

  @TempDir Path dir;

  /** A jar of one entry {@code name} holding {@code content}. */
  private Path jar(String file, String name, byte[] content) throws Exception {
    Path jar = dir.resolve(file);
    try (OutputStream out = Files.newOutputStream(jar);
        JarOutputStream entries = new JarOutputStream(out, new Manifest())) {
      entries.putNextEntry(new JarEntry(name));
      entries.write(content);
      entries.closeEntry();
    }
    return jar;
  }

  /** Bytes as a class's constant pool holds a class it uses. */
  private static byte[] using(String internalName) {
    return ("\u0001\u0000\u0042" + internalName + "\u0007\u0000").getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void aJobCompiledAgainstFlinksApiIsRefusedNamingTheJarAndTheClass() throws Exception {
    Path jar =
        jar(
            "wc.jar",
            "com/example/WordCount.class",
            using("org/apache/flink/streaming/api/environment/StreamExecutionEnvironment"));
    assertThatThrownBy(() -> JobJars.check(jar, "target/wc.jar"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "target/wc.jar: this job was compiled against Flink's API; compile it against"
                + " io.weir:weir-api (see docs/migrating-from-flink.md). com.example.WordCount"
                + " uses org.apache.flink.streaming.api.environment.StreamExecutionEnvironment");
  }

  @Test
  void aWeirJobPassesAndFlinksOwnClassesInAJarAreNotTheJobs() throws Exception {
    assertThatCode(
            () ->
                JobJars.check(
                    jar("ok.jar", "com/example/Job.class", using("io/weir/api/StreamEnvironment")),
                    "ok.jar"))
        .doesNotThrowAnyException();
    assertThatCode(
            () ->
                JobJars.check(
                    jar(
                        "shaded.jar",
                        "org/apache/flink/util/Preconditions.class",
                        using("org/apache/flink/util/Preconditions")),
                    "shaded.jar"))
        .doesNotThrowAnyException();
  }

  @Test
  void aMissingFileAndAFileThatIsNoJarAreNamed() throws Exception {
    assertThatThrownBy(() -> JobJars.check(dir.resolve("none.jar"), "none.jar"))
        .hasMessage("none.jar: no such file");
    Path text = Files.writeString(dir.resolve("notes.jar"), "not a jar");
    assertThatThrownBy(() -> JobJars.check(text, "notes.jar"))
        .hasMessageStartingWith("notes.jar: not a jar file");
  }
}
