package io.weir.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.weir.cluster.StatusFile;
import io.weir.cluster.client.ClusterClient;
import io.weir.cluster.rpc.HostPort;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code weir cluster start} starts a JobManager and TaskManagers in the background with PID and
 * log files; {@code weir cluster stop} stops every one and removes the PID files.
 */
class ClusterStartStopIT {

  private static String execute(String... args) {
    PrintStream original = System.out;
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    int exit;
    try {
      System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
      exit = WeirCli.commandLine().execute(args);
    } finally {
      System.setOut(original);
    }
    String out = captured.toString(StandardCharsets.UTF_8);
    assertThat(exit).as(out).isZero();
    return out;
  }

  @Test
  void startsAndStopsAClusterOfThreeProcesses() throws Exception {
    Path dir = Files.createTempDirectory("weir-cluster-cli");
    List<ProcessHandle> started = new ArrayList<>();
    try {
      String out =
          execute(
              "cluster",
              "start",
              "--taskmanagers",
              "2",
              "--slots",
              "2",
              "--dir",
              dir.toString(),
              "-D",
              "jobmanager.rpc.port=0",
              "-D",
              "rest.port=0",
              "-D",
              "heartbeat.interval=500",
              "--jvm-option=-Xmx256m");
      assertThat(out).contains("TaskManager 1 (pid").contains("TaskManager 2 (pid");
      for (String name : List.of("jobmanager", "taskmanager-1", "taskmanager-2")) {
        long pid = Long.parseLong(Files.readString(dir.resolve(name + ".pid")).strip());
        started.add(ProcessHandle.of(pid).orElseThrow());
        assertThat(dir.resolve("log/" + name + ".log")).exists();
      }
      String restPort = StatusFile.read(dir.resolve("jobmanager.status")).get("rest.port");
      assertThat(out).contains("REST port 127.0.0.1:" + restPort);
      ClusterClient client =
          new ClusterClient(new HostPort("127.0.0.1", Integer.parseInt(restPort)), null);
      assertThat(client.get("/taskmanagers").path("taskmanagers").size()).isEqualTo(2);
      for (int i = 1; i <= 2; i++) {
        assertThat(StatusFile.read(dir.resolve("taskmanager-" + i + ".status")))
            .containsKeys("id", "rpc.port", "data.port", "pid");
      }

      String stopped = execute("cluster", "stop", "--dir", dir.toString());
      assertThat(stopped).contains("Stopped jobmanager").contains("Stopped taskmanager-2");
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> started.stream().noneMatch(ProcessHandle::isAlive));
      try (var files = Files.list(dir)) {
        assertThat(files.filter(p -> p.toString().endsWith(".pid"))).isEmpty();
      }
    } finally {
      started.forEach(ProcessHandle::destroyForcibly);
    }
  }
}
