package io.weir.benchmarks.w8;

import java.io.IOException;
import java.io.OutputStream;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.stream.Stream;

/**
 * The job jar W8 submits to either cluster: the class files of this package, from the module's
 * {@code target/classes}. The clusters' processes have neither this module's classes nor the job's
 * on their class path, so the jar is how the job's code reaches them, as in production.
 */
final class JobJar {
  private JobJar() {}

  static Path write(Path target) throws IOException {
    Path classes;
    try {
      classes = Path.of(JobJar.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    } catch (URISyntaxException e) {
      throw new IOException("W8: cannot locate the classes of " + JobJar.class.getPackageName(), e);
    }
    Path pkg = classes.resolve(JobJar.class.getPackageName().replace('.', '/'));
    Manifest manifest = new Manifest();
    manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
    try (OutputStream file = Files.newOutputStream(target);
        JarOutputStream jar = new JarOutputStream(file, manifest);
        Stream<Path> files = Files.list(pkg)) {
      for (Path p : files.filter(f -> f.toString().endsWith(".class")).sorted().toList()) {
        jar.putNextEntry(new JarEntry(classes.relativize(p).toString().replace('\\', '/')));
        jar.write(Files.readAllBytes(p));
        jar.closeEntry();
      }
    }
    return target;
  }
}
