package io.weir.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The cluster commands print what is wrong, naming it, with no stack trace, and exit 1. */
class ClusterCommandsTest {

  @TempDir Path dir;

  private static String[] run(String... args) {
    StringWriter err = new StringWriter();
    int exit = WeirCli.commandLine().setErr(new PrintWriter(err, true)).execute(args);
    return new String[] {String.valueOf(exit), err.toString()};
  }

  private static void assertFails(String[] result, String... fragments) {
    assertThat(result[0]).as(result[1]).isEqualTo(String.valueOf(WeirCli.EXIT_FAILURE));
    assertThat(result[1]).contains(fragments).doesNotContain("\tat io.weir");
  }

  @Test
  void aTaskManagerWithAnAddressThatIsNoHostAndPort() {
    assertFails(
        run("taskmanager", "--jobmanager", "nonsense", "-D", "taskmanager.rpc.port=0"),
        "weir taskmanager: ",
        "--jobmanager 'nonsense' is not HOST:PORT");
  }

  @Test
  void runWithoutTheJarFile() {
    assertFails(
        run("run", "-m", "127.0.0.1:1", dir.resolve("missing.jar").toString()),
        "weir run: ",
        dir.resolve("missing.jar") + ": no such file");
  }

  @Test
  void runAgainstNoJobManager() throws Exception {
    Path jar = dir.resolve("job.jar");
    try (var out =
        new java.util.jar.JarOutputStream(
            Files.newOutputStream(jar), new java.util.jar.Manifest())) {
      out.putNextEntry(new java.util.jar.JarEntry("com/example/Main.class"));
      out.closeEntry();
    }
    assertFails(
        run("run", "-m", "127.0.0.1:1", "-c", "com.example.Main", jar.toString()),
        "Cannot reach the JobManager's REST API at 127.0.0.1:1");
  }

  @Test
  void stopWithoutACluster() {
    assertFails(run("cluster", "stop", "--dir", dir.toString()), "No cluster runs from " + dir);
  }

  @Test
  void aSettingThatIsNoKeyValue() {
    assertFails(run("jobmanager", "-D", "rest.port"), "'rest.port' is not key=value");
  }
}
