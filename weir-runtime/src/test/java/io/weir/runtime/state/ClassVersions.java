package io.weir.runtime.state;

import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;

/**
 * Versions of one user class: the same class name compiled from different sources, each into a
 * class loader of its own (whose parent is the test's), as two deployments of a job would load
 * them. The sources may use {@code java.*} only.
 */
public final class ClassVersions {

  private ClassVersions() {}

  /**
   * Compiles {@code source}, which declares public class {@code className}, under {@code dir}.
   *
   * @return a class loader that loads it
   */
  public static ClassLoader compile(Path dir, String className, String source) {
    try {
      Path classes = Files.createDirectories(dir.resolve("classes"));
      int dot = className.lastIndexOf('.');
      Path sources =
          Files.createDirectories(
              dir.resolve("src")
                  .resolve(className.substring(0, Math.max(dot, 0)).replace('.', '/')));
      Path file = sources.resolve(className.substring(dot + 1) + ".java");
      Files.writeString(file, source);
      JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
      if (compiler == null) {
        throw new IllegalStateException("The tests need a JDK (javax.tools), not a JRE");
      }
      StringWriter errors = new StringWriter();
      boolean ok =
          compiler
              .getTask(
                  errors,
                  null,
                  null,
                  List.of("-d", classes.toString(), "--release", "17"),
                  null,
                  compiler
                      .getStandardFileManager(null, null, null)
                      .getJavaFileObjects(file.toFile()))
              .call();
      if (!ok) {
        throw new IllegalStateException("Compiling " + className + " failed:\n" + errors);
      }
      return loader(classes);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static ClassLoader loader(Path classes) throws MalformedURLException {
    return new URLClassLoader(
        new URL[] {classes.toUri().toURL()}, ClassVersions.class.getClassLoader());
  }
}
