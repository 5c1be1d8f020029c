package io.weir.dist;

import static io.weir.dist.Manifests.containerPort;
import static io.weir.dist.Manifests.onlyContainer;
import static io.weir.dist.Manifests.resolvePort;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.weir.api.config.ConfigOption;
import io.weir.api.config.Configuration;
import io.weir.api.config.KnownKeys;
import io.weir.cluster.ClusterOptions;
import io.weir.cluster.ha.HighAvailabilityOptions;
import io.weir.cluster.metrics.MetricOptions;
import io.weir.runtime.storage.FileSystemFactory;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.IntStream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.dataformat.yaml.YAMLMapper;

/**
 * The Kubernetes manifests of {@code deploy/kubernetes}, read into Kubernetes' typed model: that
 * they are what {@code kubectl apply -k} would accept, and that they agree with each other, with
 * Weir's configuration keys and with the image the build tags. No Kubernetes cluster is reachable
 * where Weir is built; this and the image's tests are what CI checks.
 */
class KubernetesManifestsTest {

  static final String JOBMANAGER = "weir-jobmanager";
  static final String TASKMANAGER = "weir-taskmanager";
  static final String ZOOKEEPER = "weir-zookeeper";

  static Manifests manifests;
  static Configuration config;

  @BeforeAll
  static void load() {
    manifests = Manifests.load();
    config = manifests.weirConfig();
  }

  @Test
  void kustomizationListsEveryManifest() {
    List<String> files = new ArrayList<>();
    for (Path f : Manifests.yamlFiles(manifests.dir)) {
      String name = f.getFileName().toString();
      if (!name.equals(Manifests.KUSTOMIZATION)) {
        files.add(name);
      }
    }
    assertThat(manifests.kustomization.path("kind").asString()).isEqualTo("Kustomization");
    assertThat(manifests.kustomizationResources())
        .as("resources of %s", Manifests.KUSTOMIZATION)
        .containsExactlyInAnyOrderElementsOf(files);
  }

  @Test
  void everyObjectIsNamedAndLabelled() {
    assertThat(manifests.documents).hasSizeGreaterThanOrEqualTo(7);
    for (Manifests.Document d : manifests.documents) {
      HasMetadata r = d.resource();
      assertThat(r.getMetadata().getName()).as("name of %s", d).isNotBlank();
      assertThat(r.getMetadata().getNamespace())
          .as("%s: the namespace is kubectl's or kustomize's to choose", d)
          .isNull();
      assertThat(r.getMetadata().getLabels())
          .as("labels of %s", d)
          .containsKey("app.kubernetes.io/name");
    }
  }

  @Test
  void aMisspelledFieldOrKindIsReportedWithItsPlace(@TempDir Path dir) throws IOException {
    Path good = manifests.dir;
    Files.writeString(
        dir.resolve(Manifests.KUSTOMIZATION),
        Files.readString(good.resolve(Manifests.KUSTOMIZATION)));
    Files.writeString(
        dir.resolve("bad.yaml"),
        Files.readString(good.resolve("taskmanager.yaml"))
            .replaceFirst("(?m)^  replicas: 2$", "  replica: 2"));
    assertThatThrownBy(() -> Manifests.load(dir))
        .hasMessageContaining("bad.yaml (document 1)")
        .hasMessageContaining("Deployment.spec.replica");

    Files.writeString(
        dir.resolve("bad.yaml"), "apiVersion: apps/v1\nkind: Deploymnt\nmetadata:\n  name: x\n");
    assertThatThrownBy(() -> Manifests.load(dir))
        .hasMessageContaining("bad.yaml (document 1) is apiVersion apps/v1, kind Deploymnt");
  }

  @Test
  void twoJobManagersProbedOnTheRestPort() {
    Deployment jm = manifests.get(Deployment.class, JOBMANAGER);
    assertThat(jm.getSpec().getReplicas()).isEqualTo(2);
    // A standby is never ready, so a rolling update would never finish.
    assertThat(jm.getSpec().getStrategy().getType()).isEqualTo("Recreate");
    PodTemplateSpec template = jm.getSpec().getTemplate();
    assertThat(jm.getSpec().getSelector().getMatchLabels())
        .isEqualTo(template.getMetadata().getLabels());
    Container c = onlyContainer(template);
    assertThat(c.getArgs().get(0)).isEqualTo("jobmanager");
    assertConfigMounted(template, c);

    int restPort = config.get(ClusterOptions.REST_PORT);
    assertHttpProbe(c, c.getLivenessProbe(), "/health", restPort);
    assertHttpProbe(c, c.getStartupProbe(), "/health", restPort);
    assertHttpProbe(c, c.getReadinessProbe(), "/health/leader", restPort);
    assertThat(containerPort(c, "rpc")).isEqualTo(config.get(ClusterOptions.JM_PORT));
    // Each JobManager is reached at its own pod's address.
    assertThat(Manifests.setting(c, ClusterOptions.JM_ADDRESS.key())).isEqualTo("$(POD_IP)");
    assertPodIp(c);
    assertSecured(template.getSpec(), c);
  }

  @Test
  void serviceRoutesClientsToTheJobManagersRestPort() {
    Deployment jm = manifests.get(Deployment.class, JOBMANAGER);
    Container c = onlyContainer(jm.getSpec().getTemplate());
    Service service = manifests.get(Service.class, JOBMANAGER);
    Map<String, String> jmLabels = jm.getSpec().getTemplate().getMetadata().getLabels();
    assertThat(jmLabels).containsAllEntriesOf(service.getSpec().getSelector());
    Map<String, String> tmLabels =
        manifests
            .get(Deployment.class, TASKMANAGER)
            .getSpec()
            .getTemplate()
            .getMetadata()
            .getLabels();
    assertThat(tmLabels.entrySet().containsAll(service.getSpec().getSelector().entrySet()))
        .as("the Service selects TaskManagers too")
        .isFalse();
    // Only ready pods, the leader alone, get traffic.
    assertThat(service.getSpec().getPublishNotReadyAddresses()).isNotEqualTo(true);

    ServicePort rest = servicePort(service, "rest");
    assertThat(rest.getPort()).isEqualTo(config.get(ClusterOptions.REST_PORT));
    assertThat(resolvePort(c, rest.getTargetPort()))
        .isEqualTo(config.get(ClusterOptions.REST_PORT));
  }

  @Test
  void taskManagersProbedOnTheirControlPort() {
    Deployment tm = manifests.get(Deployment.class, TASKMANAGER);
    PodTemplateSpec template = tm.getSpec().getTemplate();
    Container c = onlyContainer(template);
    assertThat(c.getArgs().get(0)).isEqualTo("taskmanager");
    // Without --jobmanager, a TaskManager under high availability follows the leader ZooKeeper
    // publishes.
    assertThat(c.getArgs()).doesNotContain("--jobmanager");
    assertThat(HighAvailabilityOptions.isZooKeeper(config)).isTrue();
    assertConfigMounted(template, c);
    Probe liveness = c.getLivenessProbe();
    assertThat(liveness.getTcpSocket()).as("liveness of %s", TASKMANAGER).isNotNull();
    assertThat(resolvePort(c, liveness.getTcpSocket().getPort()))
        .as("the liveness probe's port against %s", ClusterOptions.TM_PORT.key())
        .isEqualTo(config.get(ClusterOptions.TM_PORT));
    assertThat(containerPort(c, "data")).isEqualTo(config.get(ClusterOptions.TM_DATA_PORT));
    // The JobManager and the other TaskManagers reach it at the pod's address.
    assertThat(Manifests.setting(c, ClusterOptions.TM_HOST.key())).isEqualTo("$(POD_IP)");
    assertPodIp(c);
    assertSecured(template.getSpec(), c);
    assertThat(config.get(ClusterOptions.SLOTS)).isGreaterThan(0);
  }

  @Test
  void prometheusScrapesEveryWeirPodWhereItServesItsMetrics() {
    String port = config.get(MetricOptions.PROMETHEUS_PORT);
    assertThat(port).as(MetricOptions.PROMETHEUS_PORT.key()).matches("\\d+");
    // Bound on the pod's addresses, not only its loopback: the endpoint takes the bind host.
    assertThat(config.get(MetricOptions.PROMETHEUS_HOST)).isNull();
    assertThat(config.getString("jobmanager.bind-host", null)).isEqualTo("0.0.0.0");
    assertThat(config.getString("taskmanager.bind-host", null)).isEqualTo("0.0.0.0");
    for (String deployment : List.of(JOBMANAGER, TASKMANAGER)) {
      PodTemplateSpec template =
          manifests.get(Deployment.class, deployment).getSpec().getTemplate();
      Map<String, String> annotations = template.getMetadata().getAnnotations();
      assertThat(annotations)
          .as("the pod annotations of %s", deployment)
          .containsEntry("prometheus.io/scrape", "true")
          .containsEntry("prometheus.io/port", port)
          .containsEntry("prometheus.io/path", "/metrics");
      assertThat(containerPort(onlyContainer(template), "metrics"))
          .as("the metrics port of %s", deployment)
          .isEqualTo(Integer.parseInt(port));
    }
  }

  @Test
  void everyContainerHasRequestsAndLimits() {
    for (PodTemplateSpec template : templates()) {
      for (Container c : template.getSpec().getContainers()) {
        assertThat(c.getResources().getRequests())
            .as("requests of %s", c.getName())
            .containsKeys("cpu", "memory");
        assertThat(c.getResources().getLimits())
            .as("limits of %s", c.getName())
            .containsKeys("cpu", "memory");
        assertThat(c.getResources().getLimits().get("memory"))
            .as(
                "%s: a memory limit equal to the request, so the pod is not killed for memory the"
                    + " scheduler did not reserve",
                c.getName())
            .isEqualTo(c.getResources().getRequests().get("memory"));
      }
    }
  }

  @Test
  void configIsYamlWithHighAvailabilityOnTheStatefulSetsQuorum() {
    JsonNode yaml = new YAMLMapper().readTree(manifests.weirConfigText());
    assertThat(yaml.isObject()).as("%s parses as a YAML map", Manifests.CONFIG_KEY).isTrue();
    assertThat(yaml.propertyNames()).containsExactlyInAnyOrderElementsOf(config.toMap().keySet());

    assertThat(HighAvailabilityOptions.isZooKeeper(config)).isTrue();
    StatefulSet zk = manifests.get(StatefulSet.class, ZOOKEEPER);
    Service headless = manifests.get(Service.class, zk.getSpec().getServiceName());
    assertThat(headless.getSpec().getClusterIP()).isEqualTo("None");
    int clientPort = servicePort(headless, "client").getPort();
    List<String> pods =
        IntStream.range(0, zk.getSpec().getReplicas())
            .mapToObj(
                i ->
                    zk.getMetadata().getName()
                        + "-"
                        + i
                        + "."
                        + headless.getMetadata().getName()
                        + ":"
                        + clientPort)
            .toList();
    assertThat(config.get(HighAvailabilityOptions.ZOOKEEPER_QUORUM).split(","))
        .containsExactlyElementsOf(pods);
    assertThat(config.get(HighAvailabilityOptions.CLUSTER_ID)).startsWith("/");
    for (ConfigOption<String> dir :
        List.of(
            HighAvailabilityOptions.STORAGE_DIR,
            io.weir.api.config.CheckpointingOptions.CHECKPOINTS_DIRECTORY)) {
      String uri = config.get(dir);
      assertThat(uri).as(dir.key()).isNotNull();
      String scheme = URI.create(uri).getScheme();
      assertThat(fileSystemSchemes())
          .as("%s is %s: the image must serve the scheme %s", dir.key(), uri, scheme)
          .contains(scheme);
    }
    for (ConfigOption<String> bind :
        List.of(
            ClusterOptions.JM_BIND_HOST,
            ClusterOptions.REST_BIND_ADDRESS,
            ClusterOptions.TM_BIND_HOST)) {
      assertThat(config.get(bind)).as("%s inside a pod", bind.key()).isEqualTo("0.0.0.0");
    }
  }

  @Test
  void everyConfigKeyIsOneWeirKnowsWithAValueItReads() {
    List<String> unknown = new ArrayList<>();
    for (String key : config.toMap().keySet()) {
      if (!KnownKeys.all().contains(key)) {
        unknown.add(key);
      }
    }
    assertThat(unknown)
        .as("keys of %s that no module of the image knows (KnownKeys)", Manifests.CONFIG_MAP)
        .isEmpty();
    assertThat(KnownKeys.unknownInProcess(config)).isEmpty();
    for (ConfigOption<?> option : KnownKeys.options()) {
      if (config.contains(option)) {
        config.get(option); // throws, naming the key, for a value it cannot read
      }
    }
  }

  @Test
  void aMisspelledConfigKeyIsCaught() {
    Configuration typo = new Configuration(config);
    typo.setString("high-availability.zookeeper.qourum", "x:2181");
    assertThat(KnownKeys.unknownInProcess(typo))
        .containsExactly(
            "'high-availability.zookeeper.qourum' (did you mean"
                + " 'high-availability.zookeeper.quorum'?)");
  }

  @Test
  void weirContainersRunTheImageTheBuildTags() {
    String image = System.getProperty("weir.image.reference");
    assertThat(image).as("system property weir.image.reference (set by the build)").isNotNull();
    for (String name : List.of(JOBMANAGER, TASKMANAGER)) {
      Container c = onlyContainer(manifests.get(Deployment.class, name).getSpec().getTemplate());
      assertThat(c.getImage()).as("image of %s", name).isEqualTo(image);
      assertThat(c.getImagePullPolicy())
          .as("a loaded image is used as it is")
          .isEqualTo("IfNotPresent");
    }
  }

  @Test
  void zooKeeperIsAQuorumOfThreeAtTheClientsVersion() {
    StatefulSet zk = manifests.get(StatefulSet.class, ZOOKEEPER);
    assertThat(zk.getSpec().getReplicas()).isEqualTo(3);
    assertThat(zk.getSpec().getPodManagementPolicy()).isEqualTo("Parallel");
    Service headless = manifests.get(Service.class, zk.getSpec().getServiceName());
    assertThat(headless.getSpec().getPublishNotReadyAddresses()).isTrue();
    assertThat(zk.getSpec().getTemplate().getMetadata().getLabels())
        .containsAllEntriesOf(headless.getSpec().getSelector());

    Container c = onlyContainer(zk.getSpec().getTemplate());
    String version = org.apache.zookeeper.Version.getVersion().split("-")[0];
    assertThat(c.getImage()).isEqualTo("zookeeper:" + version);
    String servers = env(c, "ZOO_SERVERS");
    for (int i = 0; i < 3; i++) {
      assertThat(servers.split("\\s+"))
          .contains(
              "server."
                  + (i + 1)
                  + "="
                  + zk.getMetadata().getName()
                  + "-"
                  + i
                  + "."
                  + headless.getMetadata().getName()
                  + ":2888:3888;"
                  + containerPort(c, "client"));
    }
    PodDisruptionBudget pdb = manifests.get(PodDisruptionBudget.class, ZOOKEEPER);
    assertThat(pdb.getSpec().getMaxUnavailable().getIntVal()).isEqualTo(1);
    assertThat(zk.getSpec().getTemplate().getMetadata().getLabels())
        .containsAllEntriesOf(pdb.getSpec().getSelector().getMatchLabels());
  }

  private static List<PodTemplateSpec> templates() {
    List<PodTemplateSpec> templates = new ArrayList<>();
    manifests.all(Deployment.class).forEach(d -> templates.add(d.getSpec().getTemplate()));
    manifests.all(StatefulSet.class).forEach(s -> templates.add(s.getSpec().getTemplate()));
    return templates;
  }

  private static void assertHttpProbe(Container c, Probe probe, String path, int port) {
    assertThat(probe).as("probe on %s of %s", path, c.getName()).isNotNull();
    assertThat(probe.getHttpGet().getPath()).isEqualTo(path);
    assertThat(resolvePort(c, probe.getHttpGet().getPort()))
        .as("port of the probe on %s against rest.port", path)
        .isEqualTo(port);
  }

  /** The container reads the ConfigMap's config.yaml as --config, from a volume of it. */
  private static void assertConfigMounted(PodTemplateSpec template, Container c) {
    String file = Manifests.option(c, "--config");
    Path path = Path.of(file);
    VolumeMount mount =
        c.getVolumeMounts().stream()
            .filter(m -> Path.of(m.getMountPath()).equals(path.getParent()))
            .findFirst()
            .orElseThrow(() -> new AssertionError("No volume mounted at the directory of " + file));
    Volume volume =
        template.getSpec().getVolumes().stream()
            .filter(v -> v.getName().equals(mount.getName()))
            .findFirst()
            .orElseThrow();
    assertThat(volume.getConfigMap().getName()).isEqualTo(Manifests.CONFIG_MAP);
    assertThat(path.getFileName().toString()).isEqualTo(Manifests.CONFIG_KEY);
    assertThat(manifests.get(ConfigMap.class, Manifests.CONFIG_MAP).getData())
        .containsKey(Manifests.CONFIG_KEY);
  }

  private static void assertPodIp(Container c) {
    EnvVar podIp =
        c.getEnv().stream().filter(e -> e.getName().equals("POD_IP")).findFirst().orElseThrow();
    assertThat(podIp.getValueFrom().getFieldRef().getFieldPath()).isEqualTo("status.podIP");
  }

  /**
   * Non-root, the image's user, a read-only root file system with a writable /tmp, and the cluster
   * secret from a Secret.
   */
  private static void assertSecured(PodSpec pod, Container c) {
    assertThat(pod.getSecurityContext().getRunAsNonRoot()).isTrue();
    assertThat(pod.getSecurityContext().getRunAsUser()).isEqualTo(1000L);
    assertThat(c.getSecurityContext().getReadOnlyRootFilesystem()).isTrue();
    VolumeMount tmp =
        c.getVolumeMounts().stream()
            .filter(m -> m.getMountPath().equals("/tmp"))
            .findFirst()
            .orElseThrow(() -> new AssertionError(c.getName() + " has no volume at /tmp"));
    assertThat(
            pod.getVolumes().stream()
                .filter(v -> v.getName().equals(tmp.getName()))
                .findFirst()
                .orElseThrow()
                .getEmptyDir())
        .isNotNull();
    assertThat(Manifests.setting(c, ClusterOptions.SECRET.key()))
        .isEqualTo("$(WEIR_CLUSTER_SECRET)");
    EnvVar secret =
        c.getEnv().stream()
            .filter(e -> e.getName().equals("WEIR_CLUSTER_SECRET"))
            .findFirst()
            .orElseThrow();
    assertThat(secret.getValueFrom().getSecretKeyRef().getName()).isEqualTo("weir-cluster-secret");
  }

  private static ServicePort servicePort(Service service, String name) {
    return service.getSpec().getPorts().stream()
        .filter(p -> name.equals(p.getName()))
        .findFirst()
        .orElseThrow(
            () ->
                new AssertionError(
                    "The Service " + service.getMetadata().getName() + " has no port " + name));
  }

  private static String env(Container c, String name) {
    return c.getEnv().stream()
        .filter(e -> e.getName().equals(name))
        .map(EnvVar::getValue)
        .findFirst()
        .orElseThrow(() -> new AssertionError(c.getName() + " has no env " + name));
  }

  private static Set<String> fileSystemSchemes() {
    Set<String> schemes = new TreeSet<>(List.of("file"));
    ServiceLoader.load(FileSystemFactory.class).forEach(f -> schemes.add(f.scheme()));
    return schemes;
  }
}
