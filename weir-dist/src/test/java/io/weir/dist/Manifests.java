package io.weir.dist;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.KubernetesResource;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.weir.api.config.Configuration;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.MappingIterator;
import tools.jackson.dataformat.yaml.YAMLMapper;

/**
 * The Kubernetes manifests of {@code deploy/kubernetes}: every YAML document of every file, read
 * into fabric8's typed model as {@code kubectl} would read it (by {@code apiVersion} and {@code
 * kind}), and the Weir configuration its ConfigMap holds. Reading fails on a document of a kind the
 * model does not know and on a field its type does not have, naming the file and the field.
 */
final class Manifests {

  /** The file that lists the manifests for {@code kubectl apply -k}. */
  static final String KUSTOMIZATION = "kustomization.yaml";

  /** The ConfigMap with Weir's settings, and its key that the pods read as {@code --config}. */
  static final String CONFIG_MAP = "weir-config";

  static final String CONFIG_KEY = "config.yaml";

  /** One YAML document: where it is and what it became. */
  record Document(Path file, int index, HasMetadata resource) {
    @Override
    public String toString() {
      return file.getFileName()
          + " (document "
          + (index + 1)
          + ", "
          + resource.getKind()
          + " "
          + resource.getMetadata().getName()
          + ")";
    }
  }

  private static final YAMLMapper YAML = new YAMLMapper();

  final Path dir;
  final JsonNode kustomization;
  final List<Document> documents;

  private Manifests(Path dir, JsonNode kustomization, List<Document> documents) {
    this.dir = dir;
    this.kustomization = kustomization;
    this.documents = documents;
  }

  /** The manifests in the directory the build names ({@code weir.deploy.dir}). */
  static Manifests load() {
    String dir = System.getProperty("weir.deploy.dir");
    if (dir == null) {
      throw new IllegalStateException(
          "The system property weir.deploy.dir is not set: run the tests through Maven, which sets"
              + " it to deploy/kubernetes");
    }
    return load(Path.of(dir));
  }

  static Manifests load(Path dir) {
    KubernetesSerialization serialization = new KubernetesSerialization();
    List<Document> documents = new ArrayList<>();
    JsonNode kustomization = null;
    for (Path file : yamlFiles(dir)) {
      List<JsonNode> nodes = readDocuments(file);
      if (file.getFileName().toString().equals(KUSTOMIZATION)) {
        kustomization = nodes.get(0);
        continue;
      }
      for (int i = 0; i < nodes.size(); i++) {
        documents.add(typed(serialization, file, i, nodes.get(i)));
      }
    }
    if (kustomization == null) {
      throw new AssertionError("No " + KUSTOMIZATION + " in " + dir);
    }
    return new Manifests(dir, kustomization, documents);
  }

  static List<Path> yamlFiles(Path dir) {
    try (Stream<Path> files = Files.list(dir)) {
      return files.filter(f -> f.getFileName().toString().endsWith(".yaml")).sorted().toList();
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot list the manifests in " + dir, e);
    }
  }

  private static List<JsonNode> readDocuments(Path file) {
    List<JsonNode> nodes = new ArrayList<>();
    try (MappingIterator<JsonNode> it =
        YAML.readerFor(JsonNode.class).readValues(Files.readString(file, StandardCharsets.UTF_8))) {
      while (it.hasNextValue()) {
        JsonNode node = it.nextValue();
        if (node != null && !node.isNull() && !node.isMissingNode()) {
          nodes.add(node);
        }
      }
    } catch (IOException | RuntimeException e) {
      throw new AssertionError("Cannot read " + file + " as YAML: " + e.getMessage(), e);
    }
    return nodes;
  }

  private static Document typed(
      KubernetesSerialization serialization, Path file, int index, JsonNode node) {
    String where = file.getFileName() + " (document " + (index + 1) + ")";
    Object value;
    try {
      value = serialization.unmarshal(node.toString(), KubernetesResource.class);
    } catch (RuntimeException e) {
      throw new AssertionError(
          where + " does not read as a Kubernetes object: " + e.getMessage(), e);
    }
    if (!(value instanceof HasMetadata resource) || value instanceof GenericKubernetesResource) {
      throw new AssertionError(
          where
              + " is apiVersion "
              + node.path("apiVersion").asString()
              + ", kind "
              + node.path("kind").asString()
              + ", which the Kubernetes model does not know: misspelled, or an API version the"
              + " cluster no longer serves");
    }
    List<String> unknown = new ArrayList<>();
    collectUnknownFields(resource, resource.getKind(), unknown, 0);
    if (!unknown.isEmpty()) {
      throw new AssertionError(
          where + " has fields its types do not have (misspelled or misplaced): " + unknown);
    }
    return new Document(file, index, resource);
  }

  /**
   * Every field that Jackson put into a model object's {@code additionalProperties}: the model's
   * types accept any field there instead of failing, so this walks the typed tree for them.
   */
  private static void collectUnknownFields(
      Object value, String path, List<String> unknown, int depth) {
    if (value == null || depth > 40) {
      return;
    }
    if (value instanceof Collection<?> items) {
      int i = 0;
      for (Object item : items) {
        collectUnknownFields(item, path + "[" + i++ + "]", unknown, depth + 1);
      }
      return;
    }
    if (value instanceof Map<?, ?> map) {
      map.forEach((k, v) -> collectUnknownFields(v, path + "." + k, unknown, depth + 1));
      return;
    }
    if (!value.getClass().getName().startsWith("io.fabric8.")) {
      return;
    }
    for (Method getter : value.getClass().getMethods()) {
      if (getter.getParameterCount() != 0
          || Modifier.isStatic(getter.getModifiers())
          || !getter.getName().startsWith("get")
          || getter.getDeclaringClass() == Object.class) {
        continue;
      }
      Object field;
      try {
        field = getter.invoke(value);
      } catch (IllegalAccessException | InvocationTargetException e) {
        continue;
      }
      if (getter.getName().equals("getAdditionalProperties")) {
        if (field instanceof Map<?, ?> extra && !extra.isEmpty()) {
          extra.keySet().forEach(k -> unknown.add(path + "." + k));
        }
      } else {
        String name = getter.getName().substring(3);
        collectUnknownFields(
            field,
            path + "." + Character.toLowerCase(name.charAt(0)) + name.substring(1),
            unknown,
            depth + 1);
      }
    }
  }

  /** The resources that {@code kustomization.yaml} lists, as written there. */
  List<String> kustomizationResources() {
    List<String> resources = new ArrayList<>();
    kustomization.path("resources").forEach(r -> resources.add(r.asString()));
    return resources;
  }

  /** The object of {@code type} named {@code name}; fails naming what there is. */
  <T extends HasMetadata> T get(Class<T> type, String name) {
    List<String> seen = new ArrayList<>();
    for (Document d : documents) {
      if (type.isInstance(d.resource()) && d.resource().getMetadata().getName().equals(name)) {
        return type.cast(d.resource());
      }
      seen.add(d.toString());
    }
    throw new AssertionError(
        "No " + type.getSimpleName() + " named " + name + " in " + dir + "; there are " + seen);
  }

  <T extends HasMetadata> List<T> all(Class<T> type) {
    return documents.stream()
        .map(Document::resource)
        .filter(type::isInstance)
        .map(type::cast)
        .toList();
  }

  /** The text of the Weir configuration in the ConfigMap, as a pod sees it in its file. */
  String weirConfigText() {
    String text = get(ConfigMap.class, CONFIG_MAP).getData().get(CONFIG_KEY);
    if (text == null) {
      throw new AssertionError("The ConfigMap " + CONFIG_MAP + " has no key " + CONFIG_KEY);
    }
    return text;
  }

  /** The Weir configuration in the ConfigMap, read as the processes read {@code --config}. */
  Configuration weirConfig() {
    try {
      Path file = Files.createTempFile("weir-config", ".yaml");
      try {
        Files.writeString(file, weirConfigText(), StandardCharsets.UTF_8);
        return Configuration.fromYaml(file);
      } finally {
        Files.deleteIfExists(file);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The only container of {@code template}. */
  static Container onlyContainer(PodTemplateSpec template) {
    List<Container> containers = template.getSpec().getContainers();
    if (containers.size() != 1) {
      throw new AssertionError("Expected one container, found " + containers.size());
    }
    return containers.get(0);
  }

  /** The number of a port as a probe or Service names it: a number, or a container port's name. */
  static int resolvePort(Container container, IntOrString port) {
    if (port.getIntVal() != null) {
      return port.getIntVal();
    }
    for (ContainerPort p : container.getPorts()) {
      if (port.getStrVal().equals(p.getName())) {
        return p.getContainerPort();
      }
    }
    throw new AssertionError(
        "The container " + container.getName() + " has no port named " + port.getStrVal());
  }

  /** The container port named {@code name}. */
  static int containerPort(Container container, String name) {
    return resolvePort(container, new IntOrString(name));
  }

  /** The value that {@code -D key=value} in the container's arguments gives {@code key}. */
  static String setting(Container container, String key) {
    List<String> args = container.getArgs();
    for (int i = 0; i + 1 < args.size(); i++) {
      if (args.get(i).equals("-D") && args.get(i + 1).startsWith(key + "=")) {
        return args.get(i + 1).substring(key.length() + 1);
      }
    }
    return null;
  }

  /** The value following {@code option} in the container's arguments. */
  static String option(Container container, String option) {
    List<String> args = container.getArgs();
    int i = args.indexOf(option);
    if (i < 0 || i + 1 >= args.size()) {
      throw new AssertionError(
          "The container " + container.getName() + " has no " + option + " VALUE in " + args);
    }
    return args.get(i + 1);
  }

  private static final Pattern REFERENCE = Pattern.compile("\\$\\(([A-Za-z_][A-Za-z0-9_]*)\\)");

  /**
   * The container's arguments as Kubernetes passes them: each {@code $(NAME)} replaced by the value
   * {@code values} gives the variable {@code NAME}, which the container must define. Fails on a
   * reference to a variable the container does not define or {@code values} does not give.
   */
  static List<String> expandArgs(Container container, Map<String, String> values) {
    Map<String, EnvVar> defined = new LinkedHashMap<>();
    container.getEnv().forEach(e -> defined.put(e.getName(), e));
    List<String> expanded = new ArrayList<>();
    for (String arg : container.getArgs()) {
      Matcher m = REFERENCE.matcher(arg.replace("$$", "\u0000"));
      StringBuilder out = new StringBuilder();
      while (m.find()) {
        String name = m.group(1);
        if (!defined.containsKey(name)) {
          throw new AssertionError(
              "The argument '"
                  + arg
                  + "' of "
                  + container.getName()
                  + " refers to $("
                  + name
                  + "), which its env does not define: Kubernetes would pass it unexpanded");
        }
        String value = values.get(name);
        if (value == null) {
          throw new AssertionError("No value for $(" + name + ") given to expand '" + arg + "'");
        }
        m.appendReplacement(out, Matcher.quoteReplacement(value));
      }
      m.appendTail(out);
      expanded.add(out.toString().replace("\u0000", "$"));
    }
    return expanded;
  }
}
