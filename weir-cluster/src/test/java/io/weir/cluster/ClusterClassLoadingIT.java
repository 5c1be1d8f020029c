package io.weir.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import com.example.classloading.SensorTotalsJob;
import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A user's job on a cluster of real processes whose class path has none of its classes: they are in
 * the job's jar only ({@code com.example.classloading}, with a {@code META-INF/services} entry and
 * a resource). Its POJOs travel through {@code env.fromData} and keyed state, and its function
 * finds a service and a resource through the thread's context class loader; the job fails once
 * after a checkpoint and restores it, so the restore of the keyed state, the splits and the
 * collection source's serializer runs too. The output is exact on both state backends.
 */
class ClusterClassLoadingIT {

  private static TestCluster cluster;
  private static String jarId;

  @BeforeAll
  static void startCluster() throws Exception {
    cluster =
        new TestCluster(
            "classloading",
            Map.of(
                ClusterOptions.HEARTBEAT_INTERVAL.key(), "250",
                ClusterOptions.HEARTBEAT_TIMEOUT.key(), "5000"));
    cluster.startJobManager();
    cluster.startTaskManager(1);
    cluster.startTaskManager(1);
    Path jar =
        TestCluster.jarOfTestClasses(
            cluster.dir.resolve("sensor-totals.jar"),
            SensorTotalsJob.class.getName(),
            List.of(
                "com/example/classloading", "META-INF/services/com.example.classloading.Report"));
    jarId = cluster.client.upload(jar);
  }

  @AfterAll
  static void stopCluster() {
    if (cluster != null) {
      cluster.close();
    }
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"hashmap", "rocksdb"})
  void userTypesAndTheContextClassLoaderWorkOnTaskManagersAndAfterARestore(String backend)
      throws Exception {
    Path out = cluster.dir.resolve("out-" + backend);
    String jobId =
        cluster.client.run(
            jarId,
            null,
            List.of(
                out.toString(), cluster.dir.resolve("checkpoints-" + backend).toUri().toString()),
            null,
            Map.of("state.backend.type", backend));

    JsonNode job = cluster.awaitEnded(jobId);
    List<String> exceptions = cluster.exceptionMessages(jobId);
    assertThat(job.path("state").asText()).as("%s", exceptions).isEqualTo("FINISHED");
    assertThat(job.path("metrics").path("job.restarts").asLong()).as("%s", exceptions).isEqualTo(1);
    assertThat(exceptions).singleElement().asString().contains("injected failure once checkpoint");
    assertThat(TestCluster.committedLines(out))
        .containsExactlyInAnyOrderElementsOf(SensorTotalsJob.EXPECTED_LINES);
  }
}
