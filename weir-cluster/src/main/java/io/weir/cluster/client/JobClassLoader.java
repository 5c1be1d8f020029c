package io.weir.cluster.client;

import io.weir.runtime.storage.FileSystems;
import java.io.IOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Enumeration;
import java.util.List;

/**
 * The class loader of one job's jar: child-first for the job's classes, so a job brings its own
 * libraries, and parent-first for the JDK, Weir's API and runtime, and logging, so the engine and
 * the job share those types; parent-first too for Weir's examples, which every Weir process has.
 * Parent-first means the parent's class when it has one, else the jar's, as Flink's {@code
 * classloader.parent-first-patterns}. Closed when the job ends.
 */
public final class JobClassLoader extends URLClassLoader {

  private static final List<String> PARENT_FIRST =
      List.of(
          "java.",
          "javax.",
          "jdk.",
          "sun.",
          "com.sun.",
          "io.weir.api.",
          "io.weir.runtime.",
          "io.weir.cluster.",
          // The examples are on the class path of every Weir process (weir demo runs one): their
          // jar's copy would make a second PageView beside the first, and a record of one could
          // reach a function compiled against the other.
          "io.weir.examples.",
          "org.slf4j.",
          "ch.qos.logback.");

  static {
    ClassLoader.registerAsParallelCapable();
  }

  private final String jobDescription;

  public JobClassLoader(Path jar, ClassLoader parent, String jobDescription) {
    super(new URL[] {toUrl(jar)}, parent);
    this.jobDescription = jobDescription;
  }

  /**
   * Closes the jar, after the file systems found through this loader are forgotten: no later job
   * gets one of them, and they keep this loader alive no longer.
   */
  @Override
  public void close() throws IOException {
    FileSystems.forget(this);
    super.close();
  }

  private static URL toUrl(Path jar) {
    try {
      return jar.toUri().toURL();
    } catch (IOException e) {
      throw new IllegalArgumentException("Not a jar path: " + jar, e);
    }
  }

  @Override
  protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
    synchronized (getClassLoadingLock(name)) {
      Class<?> c = findLoadedClass(name);
      if (c == null) {
        if (parentFirst(name)) {
          try {
            c = getParent().loadClass(name);
          } catch (ClassNotFoundException e) {
            // Parent-first, not parent-only (as Flink's patterns): a job's own class in such a
            // package, such as io.weir.examples.kafka of a job jar, is the jar's.
            c = findClass(name);
          }
        } else {
          try {
            c = findClass(name);
          } catch (ClassNotFoundException e) {
            c = getParent().loadClass(name);
          }
        }
      }
      if (resolve) {
        resolveClass(c);
      }
      return c;
    }
  }

  private static boolean parentFirst(String name) {
    for (String prefix : PARENT_FIRST) {
      if (name.startsWith(prefix)) {
        return true;
      }
    }
    return false;
  }

  @Override
  public URL getResource(String name) {
    URL url = findResource(name);
    return url != null ? url : getParent().getResource(name);
  }

  @Override
  public Enumeration<URL> getResources(String name) throws IOException {
    List<URL> urls = new ArrayList<>(Collections.list(findResources(name)));
    urls.addAll(Collections.list(getParent().getResources(name)));
    return Collections.enumeration(urls);
  }

  @Override
  public String toString() {
    return "JobClassLoader[" + jobDescription + "]";
  }
}
