package io.weir.dist;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The image Jib wrote ({@code weir.image.tar}, the format of {@code docker save} and {@code docker
 * load}: {@code manifest.json}, the image's configuration and one gzipped tar per layer) and its
 * file system, unpacked layer by layer in order as a container runtime does, once per test JVM.
 */
final class ImageTar {

  /** What the image's configuration says a container runs, and its tags. */
  record Image(
      List<String> repoTags,
      List<String> entrypoint,
      List<String> cmd,
      Map<String, String> env,
      String user,
      String workingDir,
      Path root) {}

  private static Image unpacked;

  private ImageTar() {}

  /** The image the build wrote, unpacked. */
  static synchronized Image get() {
    if (unpacked == null) {
      String tar = System.getProperty("weir.image.tar");
      if (tar == null) {
        throw new IllegalStateException(
            "The system property weir.image.tar is not set: run the tests through Maven (mvn -pl"
                + " weir-dist -am verify), which builds the image first and sets it");
      }
      unpacked = unpack(Path.of(tar), Path.of(System.getProperty("java.io.tmpdir"), "image"));
    }
    return unpacked;
  }

  static Image unpack(Path tar, Path dir) {
    if (!Files.isRegularFile(tar)) {
      throw new IllegalStateException(
          "No image at " + tar + ": the package phase builds it (jib:buildTar)");
    }
    try {
      deleteRecursively(dir);
      Path archive = Files.createDirectories(dir.resolve("archive"));
      Path root = Files.createDirectories(dir.resolve("root"));
      run(List.of("tar", "-xf", tar.toString(), "-C", archive.toString()));
      ObjectMapper json = new ObjectMapper();
      JsonNode manifest = json.readTree(archive.resolve("manifest.json").toFile());
      if (!manifest.isArray() || manifest.size() != 1) {
        throw new IllegalStateException(tar + ": expected one image in manifest.json");
      }
      JsonNode entry = manifest.get(0);
      for (JsonNode layer : entry.get("Layers")) {
        // GNU tar warns of libarchive's extended headers, which it can skip.
        run(
            List.of(
                "tar",
                "--warning=no-unknown-keyword",
                "--same-permissions",
                "-xzf",
                archive.resolve(layer.asText()).toString(),
                "-C",
                root.toString()));
      }
      JsonNode config =
          json.readTree(archive.resolve(entry.get("Config").asText()).toFile()).get("config");
      Map<String, String> env = new LinkedHashMap<>();
      for (JsonNode e : config.path("Env")) {
        String s = e.asText();
        int eq = s.indexOf('=');
        env.put(s.substring(0, eq), s.substring(eq + 1));
      }
      return new Image(
          strings(entry.get("RepoTags")),
          strings(config.path("Entrypoint")),
          strings(config.path("Cmd")),
          env,
          config.path("User").asText(""),
          config.path("WorkingDir").asText("/"),
          root);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot unpack the image " + tar + " into " + dir, e);
    }
  }

  private static List<String> strings(JsonNode array) {
    List<String> values = new ArrayList<>();
    array.forEach(v -> values.add(v.asText()));
    return values;
  }

  private static void run(List<String> command) throws IOException {
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    String out =
        new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
    try {
      if (!p.waitFor(2, TimeUnit.MINUTES) || p.exitValue() != 0) {
        throw new IOException(String.join(" ", command) + " failed: " + out);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("Interrupted: " + String.join(" ", command), e);
    }
  }

  /**
   * Deletes {@code dir}, refusing if anything is mounted below it: a process of the image that had
   * the host's /dev mounted in its root must not take the host's devices with it.
   */
  static void deleteRecursively(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    Path mounts = Path.of("/proc/self/mounts");
    if (Files.exists(mounts)) {
      String prefix = dir.toRealPath().toString() + "/";
      for (String line : Files.readAllLines(mounts)) {
        String[] fields = line.split(" ");
        if (fields.length > 1 && (fields[1] + "/").startsWith(prefix)) {
          throw new IOException(
              fields[1]
                  + " is mounted inside "
                  + dir
                  + ": unmount it before the tests delete "
                  + dir);
        }
      }
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }
}
