package io.weir.dist;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.PodSecurityContext;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.spi.ToolProvider;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import org.junit.jupiter.api.Test;

/**
 * What the image Jib built holds, read from its layers: its tag and entrypoint as the manifests
 * expect them, and a JRE with every module the application's jars need.
 */
class ImageContentsIT {

  /**
   * Modules jdeps finds in the application's jars that the image's JRE leaves out on purpose, and
   * why. Nothing Weir runs loads them.
   */
  static final Map<String, String> LEFT_OUT =
      Map.of(
          "java.desktop",
          "AWT, Swing and java.beans: only Kryo's BeanSerializer (which Weir never registers) and"
              + " Jackson's optional java.beans annotations refer to it, and its native libraries"
              + " would bring X11, ALSA and font libraries into the image");

  @Test
  void taggedAndStartedAsTheManifestsExpect() {
    ImageTar.Image image = ImageTar.get();
    assertThat(image.repoTags()).containsExactly(System.getProperty("weir.image.reference"));
    // Jib's Java entrypoint: the first argument picks the weir command, so the role.
    assertThat(image.entrypoint())
        .containsExactly("java", "-cp", "@/app/jib-classpath-file", "io.weir.cli.WeirCli");
    assertThat(image.cmd()).containsExactly("--help");

    Manifests manifests = Manifests.load();
    for (String name :
        List.of(KubernetesManifestsTest.JOBMANAGER, KubernetesManifestsTest.TASKMANAGER)) {
      PodSecurityContext pod =
          manifests
              .get(Deployment.class, name)
              .getSpec()
              .getTemplate()
              .getSpec()
              .getSecurityContext();
      assertThat(pod.getRunAsUser() + ":" + pod.getRunAsGroup())
          .as("the user of %s's pods against the image's", name)
          .isEqualTo(image.user());
    }
  }

  @Test
  void javaOnThePathIsTheImagesJre() {
    ImageTar.Image image = ImageTar.get();
    String path = image.env().get("PATH");
    assertThat(path).as("PATH of the image").isNotNull();
    Path java =
        Arrays.stream(path.split(":"))
            .map(dir -> image.root().resolve(dir.substring(1)).resolve("java"))
            .filter(Files::isExecutable)
            .findFirst()
            .orElseThrow(
                () -> new AssertionError("No executable java on the image's PATH " + path));
    assertThat(java.getParent().getParent().resolve("release")).exists();
  }

  @Test
  void jreHoldsEveryModuleTheApplicationNeeds() throws IOException {
    ImageTar.Image image = ImageTar.get();
    Set<String> jre = jreModules(image.root().resolve("opt/java/release"));
    Map<String, Set<String>> needs = jdepsSummary(imageJars(image));
    List<String> missing = new ArrayList<>();
    needs.forEach(
        (module, jars) -> {
          if (!jre.contains(module) && !LEFT_OUT.containsKey(module)) {
            missing.add(module + " (needed by " + jars + ")");
          }
        });
    assertThat(missing)
        .as(
            "modules the application's jars need that the image's JRE lacks: add them to"
                + " image.jre.modules in weir-dist/pom.xml, or to LEFT_OUT here with the reason")
        .isEmpty();
    assertThat(jre).doesNotContainAnyElementsOf(LEFT_OUT.keySet());
  }

  /** The jars of the image's class path, in its order. */
  private static List<Path> imageJars(ImageTar.Image image) throws IOException {
    List<Path> jars = new ArrayList<>();
    for (String entry :
        Files.readString(image.root().resolve("app/jib-classpath-file"), StandardCharsets.UTF_8)
            .strip()
            .split(":")) {
      Path p = image.root().resolve(entry.substring(1));
      if (Files.isRegularFile(p)) {
        jars.add(p);
      }
    }
    assertThat(jars).as("jars of the image's class path").hasSizeGreaterThan(20);
    return jars;
  }

  private static Set<String> jreModules(Path release) throws IOException {
    for (String line : Files.readAllLines(release)) {
      if (line.startsWith("MODULES=")) {
        return new TreeSet<>(Arrays.asList(line.substring(8).replace("\"", "").split(" ")));
      }
    }
    throw new AssertionError(release + " names no MODULES");
  }

  private static final Pattern SUMMARY = Pattern.compile("^(\\S+) -> ((?:java|jdk)\\.\\S+)$");

  /**
   * Each JDK module that {@code jdeps -s} finds the jars' classes using, with the jars that use it.
   * The classes are unpacked first, one directory per jar: jdeps would treat a jar with a module
   * descriptor (Netty's, Logback's) as a module and refuse to analyse it without all the modules it
   * requires, which the class path does not describe.
   */
  private static Map<String, Set<String>> jdepsSummary(List<Path> jars) throws IOException {
    Path classes = Path.of(System.getProperty("java.io.tmpdir"), "jdeps");
    ImageTar.deleteRecursively(classes);
    List<String> args = new ArrayList<>(List.of("-s", "--ignore-missing-deps"));
    for (Path jar : jars) {
      Path dir = Files.createDirectories(classes.resolve(jar.getFileName().toString()));
      try (ZipFile zip = new ZipFile(jar.toFile())) {
        for (ZipEntry e : Collections.list(zip.entries())) {
          String name = e.getName();
          if (name.endsWith(".class")
              && !name.startsWith("META-INF/")
              && !name.endsWith("module-info.class")) {
            Path target = dir.resolve(name);
            Files.createDirectories(target.getParent());
            try (InputStream in = zip.getInputStream(e)) {
              Files.copy(in, target);
            }
          }
        }
      }
      args.add(dir.toString());
    }
    ToolProvider jdeps =
        ToolProvider.findFirst("jdeps")
            .orElseThrow(
                () -> new AssertionError("No jdeps in " + System.getProperty("java.home")));
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code = jdeps.run(new PrintWriter(out), new PrintWriter(err), args.toArray(String[]::new));
    assertThat(code).as("jdeps: %s", err).isZero();
    Map<String, Set<String>> needs = new TreeMap<>();
    for (String line : out.toString().split("\n")) {
      Matcher m = SUMMARY.matcher(line.strip());
      if (m.matches() && !m.group(2).equals("java.base")) {
        needs.computeIfAbsent(m.group(2), k -> new TreeSet<>()).add(m.group(1));
      }
    }
    assertThat(needs).as("jdeps output:\n%s", out).isNotEmpty();
    return needs;
  }
}
