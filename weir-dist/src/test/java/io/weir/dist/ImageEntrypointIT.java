package io.weir.dist;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.weir.cluster.ClusterOptions;
import io.weir.cluster.StatusFile;
import io.weir.cluster.ha.HighAvailabilityOptions;
import io.weir.cluster.metrics.MetricOptions;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Runs the image's entrypoint in the image's own root file system ({@link ImageProcess}): the weir
 * command, a JobManager and a TaskManager started with the arguments, environment and ConfigMap of
 * the Kubernetes manifests, and a job on RocksDB. No Docker daemon and no Kubernetes cluster are
 * needed, and none is reachable where Weir is built.
 */
class ImageEntrypointIT {

  static final Duration START = Duration.ofSeconds(60);

  /** Small, quick JVMs for the tests, after what the manifests give (the last flag wins). */
  static final String TEST_JVM = "-Xmx256m -XX:+UseSerialGC -XX:TieredStopAtLevel=1";

  static final String SECRET = "image-test-secret";

  static ImageTar.Image image;
  static Manifests manifests;
  static Path logs;
  static Path volumesDir;

  @BeforeAll
  static void unpack() throws IOException {
    assumeTrue(
        ImageProcess.available(),
        "These tests run the image in its own root with unshare (util-linux), making mount and"
            + " PID namespaces and mounts, which needs root; this process is not allowed to");
    image = ImageTar.get();
    manifests = Manifests.load();
    logs = Files.createDirectories(Path.of(System.getProperty("java.io.tmpdir"), "image-logs"));
    volumesDir =
        Files.createDirectories(Path.of(System.getProperty("java.io.tmpdir"), "image-volumes"));
  }

  @Test
  void withoutArgumentsTheImagePrintsTheCommands() throws Exception {
    ImageProcess weir =
        ImageProcess.start(
            image, null, Map.of("JDK_JAVA_OPTIONS", TEST_JVM), tmpOnly("help"), log("help"));
    assertThat(weir.await(START)).as(weir.output()).isZero();
    assertThat(weir.output())
        .contains("Usage: weir")
        .contains("jobmanager")
        .contains("taskmanager");
  }

  @Test
  void versionIsTheBuildsVersion() throws Exception {
    String reference = System.getProperty("weir.image.reference");
    ImageProcess weir =
        ImageProcess.start(
            image,
            List.of("--version"),
            Map.of("JDK_JAVA_OPTIONS", TEST_JVM),
            tmpOnly("version"),
            log("version"));
    assertThat(weir.await(START)).as(weir.output()).isZero();
    assertThat(weir.output()).contains("weir " + reference.substring(reference.indexOf(':') + 1));
  }

  @Test
  void aMissingConfigFileIsNamedAndFailsTheProcess() throws Exception {
    ImageProcess jm =
        ImageProcess.start(
            image,
            List.of("jobmanager", "--config", "/opt/weir/conf/absent.yaml"),
            Map.of("JDK_JAVA_OPTIONS", TEST_JVM),
            tmpOnly("absent-config"),
            log("absent-config"));
    assertThat(jm.await(START)).isEqualTo(1);
    assertThat(jm.output())
        .contains("Cannot read the config file /opt/weir/conf/absent.yaml: no such file");
  }

  /**
   * A JobManager and a TaskManager as their Deployments start them, with the ConfigMap's settings
   * in the file the pods read; only what needs another machine is changed: the pod's address
   * becomes 127.0.0.1, ports are free ones, ZooKeeper is one in this JVM (sessions of 4 s), S3 a
   * directory. The TaskManager finds the JobManager as in a pod, as the leader ZooKeeper publishes.
   */
  @Test
  void jobManagerAndTaskManagerStartAsTheirDeploymentsStartThem() throws Exception {
    Path ha = emptyDir("ha");
    try (EmbeddedZooKeeper zk = new EmbeddedZooKeeper();
        ImageProcess jm = startJobManager("jobmanager", zk, ha);
        ImageProcess tm = startTaskManager(zk)) {
      String restPort = awaitStatus(jm, "rest.port").get("rest.port");
      // The probes of jobmanager.yaml: alive, and leading (the only JobManager of the cluster).
      jm.awaitWhileAlive(
          () -> get(restPort, "/health/leader").statusCode() == 200 ? true : null, START);
      assertThat(get(restPort, "/health").statusCode()).isEqualTo(200);

      HttpResponse<String> overview = get(restPort, "/jobs/overview");
      assertThat(overview.statusCode()).as(overview.body()).isEqualTo(200);
      assertThat(json(overview.body()).get("jobs").isArray()).isTrue();

      Map<String, String> registered = awaitStatus(tm, "id");
      JsonNode taskManagers = json(get(restPort, "/taskmanagers").body()).get("taskmanagers");
      assertThat(taskManagers).hasSize(1);
      assertThat(taskManagers.get(0).get("id").asText()).isEqualTo(registered.get("id"));
      assertThat(taskManagers.get(0).get("slotsNumber").asInt())
          .as("slots from the ConfigMap's %s", ClusterOptions.SLOTS.key())
          .isEqualTo(manifests.weirConfig().get(ClusterOptions.SLOTS));

      // Netty's native transport loads on the image's C library.
      assertThat(tm.output()).contains("Data plane listening on 127.0.0.1:").contains("(EPOLL,");
      assertThat(jm.output()).doesNotContain("did you mean");
    }
  }

  /**
   * RocksDB's JNI library needs glibc and libstdc++, which the image's own layer carries: the demo
   * job keeps its sums in RocksDB, fails once and restores them from a checkpoint.
   */
  @Test
  void aJobOnRocksDbRunsInTheImage() throws Exception {
    ImageProcess demo =
        ImageProcess.start(
            image,
            List.of(
                "demo",
                "--records",
                "1000000",
                "--keys",
                "100",
                "--parallelism",
                "1",
                "--checkpoint-interval",
                "50ms"),
            Map.of("JDK_JAVA_OPTIONS", "-Dstate.backend.type=rocksdb -verbose:jni " + TEST_JVM),
            tmpOnly("demo-rocksdb"),
            log("demo-rocksdb"));
    assertThat(demo.await(Duration.ofMinutes(2))).as(demo.output()).isZero();
    assertThat(demo.output())
        .contains("Dynamic-linking native method org.rocksdb.RocksDB.open")
        .contains("restored    from checkpoint") // after the injected failure, from RocksDB's files
        .contains("every final sum is exact");
  }

  /**
   * The readiness probe of jobmanager.yaml: of two JobManagers, only the leader answers 200 on
   * /health/leader, so only it is behind the Service; when it is killed, the standby takes over and
   * answers 200.
   */
  @Test
  void onlyTheLeadingJobManagerIsReadyAndTheStandbyTakesOver() throws Exception {
    Path ha = emptyDir("ha-two");
    try (EmbeddedZooKeeper zk = new EmbeddedZooKeeper();
        ImageProcess first = startJobManager("jobmanager-1", zk, ha);
        ImageProcess second = startJobManager("jobmanager-2", zk, ha)) {
      String firstRest = awaitStatus(first, "rest.port").get("rest.port");
      String secondRest = awaitStatus(second, "rest.port").get("rest.port");
      assertThat(get(firstRest, "/health").statusCode()).isEqualTo(200);
      assertThat(get(secondRest, "/health").statusCode()).isEqualTo(200);
      String leader =
          first.awaitWhileAlive(
              () -> {
                int a = get(firstRest, "/health/leader").statusCode();
                int b = get(secondRest, "/health/leader").statusCode();
                if (a == 200 && b == 503) {
                  return "first";
                }
                return b == 200 && a == 503 ? "second" : null;
              },
              START);
      ImageProcess standby = leader.equals("first") ? second : first;
      String standbyRest = leader.equals("first") ? secondRest : firstRest;
      (leader.equals("first") ? first : second).close();
      standby.awaitWhileAlive(
          () -> get(standbyRest, "/health/leader").statusCode() == 200 ? true : null, START);
    }
  }

  /**
   * A killed leader's ZooKeeper session ends after this, and a standby takes over: 60 s in the
   * ConfigMap (the default), 4 s in the tests.
   */
  static final String SESSION_TIMEOUT = "4 s";

  /** Where the JobManagers' high-availability storage directory is, shared by them all. */
  static final String HA_DIR = "/var/weir/ha";

  /**
   * A JobManager as its Deployment starts it, with {@code ha} as its high-availability storage
   * directory (S3 in the ConfigMap; a volume shared by the JobManagers of one test here).
   */
  private static ImageProcess startJobManager(String name, EmbeddedZooKeeper zk, Path ha)
      throws IOException {
    Container c = container(KubernetesManifestsTest.JOBMANAGER);
    Map<String, Path> volumes = podVolumes(name, KubernetesManifestsTest.JOBMANAGER);
    volumes.put(HA_DIR, ha);
    List<String> args = new ArrayList<>(podArgs(c));
    addSettings(args, ClusterOptions.REST_PORT.key(), "0");
    addSettings(args, ClusterOptions.JM_PORT.key(), "0");
    addSettings(args, ClusterOptions.JM_BIND_HOST.key(), "127.0.0.1");
    addSettings(args, ClusterOptions.REST_BIND_ADDRESS.key(), "127.0.0.1");
    // Each pod serves its metrics on its own address; here the processes share one host.
    addSettings(args, MetricOptions.PROMETHEUS_PORT.key(), "0");
    addSettings(args, ClusterOptions.STATUS_FILE.key(), "/tmp/status");
    addSettings(args, HighAvailabilityOptions.ZOOKEEPER_QUORUM.key(), zk.connectString());
    addSettings(args, HighAvailabilityOptions.ZOOKEEPER_SESSION_TIMEOUT.key(), SESSION_TIMEOUT);
    addSettings(args, HighAvailabilityOptions.STORAGE_DIR.key(), "file://" + HA_DIR);
    addSettings(args, "execution.checkpointing.dir", "file:///tmp/checkpoints");
    addSettings(args, "execution.checkpointing.savepoint-dir", "file:///tmp/savepoints");
    return ImageProcess.start(image, args, podEnv(c), volumes, log(name));
  }

  /** A TaskManager as its Deployment starts it: it finds the leader in ZooKeeper. */
  private static ImageProcess startTaskManager(EmbeddedZooKeeper zk) throws IOException {
    Container c = container(KubernetesManifestsTest.TASKMANAGER);
    List<String> args = new ArrayList<>(podArgs(c));
    addSettings(args, ClusterOptions.TM_PORT.key(), "0");
    addSettings(args, ClusterOptions.TM_DATA_PORT.key(), "0");
    addSettings(args, ClusterOptions.TM_BIND_HOST.key(), "127.0.0.1");
    addSettings(args, MetricOptions.PROMETHEUS_PORT.key(), "0");
    addSettings(args, ClusterOptions.STATUS_FILE.key(), "/tmp/status");
    addSettings(args, HighAvailabilityOptions.ZOOKEEPER_QUORUM.key(), zk.connectString());
    addSettings(args, HighAvailabilityOptions.ZOOKEEPER_SESSION_TIMEOUT.key(), SESSION_TIMEOUT);
    return ImageProcess.start(
        image,
        args,
        podEnv(c),
        podVolumes("taskmanager", KubernetesManifestsTest.TASKMANAGER),
        log("taskmanager"));
  }

  private static Container container(String deployment) {
    return Manifests.onlyContainer(template(deployment));
  }

  private static PodTemplateSpec template(String deployment) {
    return manifests.get(Deployment.class, deployment).getSpec().getTemplate();
  }

  /** The container's arguments as the kubelet passes them. */
  private static List<String> podArgs(Container c) {
    return Manifests.expandArgs(c, Map.of("POD_IP", "127.0.0.1", "WEIR_CLUSTER_SECRET", SECRET));
  }

  /**
   * The volumes the Deployment mounts into its container, each a directory of the host: a
   * ConfigMap's with a file per key, an emptyDir empty and writable by all (as the kubelet makes
   * one).
   */
  private static Map<String, Path> podVolumes(String process, String deployment)
      throws IOException {
    PodTemplateSpec template = template(deployment);
    Map<String, Path> volumes = new TreeMap<>();
    for (VolumeMount mount : Manifests.onlyContainer(template).getVolumeMounts()) {
      Volume volume =
          template.getSpec().getVolumes().stream()
              .filter(v -> v.getName().equals(mount.getName()))
              .findFirst()
              .orElseThrow();
      Path dir = emptyDir(process + "-" + volume.getName());
      if (volume.getConfigMap() != null) {
        ConfigMap data = manifests.get(ConfigMap.class, volume.getConfigMap().getName());
        for (Map.Entry<String, String> e : data.getData().entrySet()) {
          Files.writeString(dir.resolve(e.getKey()), e.getValue(), StandardCharsets.UTF_8);
        }
      } else if (volume.getEmptyDir() == null) {
        throw new AssertionError("A volume neither ConfigMap nor emptyDir: " + volume.getName());
      }
      volumes.put(mount.getMountPath(), dir);
    }
    return volumes;
  }

  /** The volume a pod of the image has at least: an empty, writable /tmp. */
  private static Map<String, Path> tmpOnly(String process) throws IOException {
    return new TreeMap<>(Map.of("/tmp", emptyDir(process + "-tmp")));
  }

  private static Path emptyDir(String name) throws IOException {
    Path dir = volumesDir.resolve(name);
    ImageTar.deleteRecursively(dir);
    Files.createDirectories(dir);
    Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxrwxrwx"));
    return dir;
  }

  /** The container's plain env values (JDK_JAVA_OPTIONS), with the tests' JVM flags after. */
  private static Map<String, String> podEnv(Container c) {
    String jvm =
        c.getEnv().stream()
            .filter(e -> e.getName().equals("JDK_JAVA_OPTIONS"))
            .map(EnvVar::getValue)
            .findFirst()
            .orElse("");
    return Map.of("JDK_JAVA_OPTIONS", (jvm + " " + TEST_JVM).strip());
  }

  /** {@code -D key=value} after the pod's arguments: it wins over the same key before it. */
  private static void addSettings(List<String> args, String key, String value) {
    args.add("-D");
    args.add(key + "=" + value);
  }

  /** What the process wrote to its status file, in its /tmp, once it holds {@code key}. */
  private static Map<String, String> awaitStatus(ImageProcess p, String key) {
    Path file = p.volumes.get("/tmp").resolve("status");
    return p.awaitWhileAlive(
        () -> {
          Map<String, String> s = StatusFile.read(file);
          return s.containsKey(key) ? s : null;
        },
        START);
  }

  private static Path log(String name) {
    return logs.resolve(name + ".log");
  }

  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  private static HttpResponse<String> get(String port, String path)
      throws IOException, InterruptedException {
    return HTTP.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
            .timeout(Duration.ofSeconds(10))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static JsonNode json(String body) throws IOException {
    return new ObjectMapper().readTree(body);
  }
}
