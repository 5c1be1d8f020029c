package io.weir.cluster.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Where a job's class loader takes each class from: the parent or the job's jar. */
class JobClassLoaderTest {

  @TempDir Path dir;

  /** A class in a parent-first package ({@code io.weir.cluster.}). */
  static final class Probe {}

  /** A jar holding the class file of {@code type}, as a job jar would. */
  private Path jarOf(Class<?> type) throws Exception {
    String entry = type.getName().replace('.', '/') + ".class";
    Path jar = dir.resolve("job.jar");
    try (OutputStream out = Files.newOutputStream(jar);
        JarOutputStream entries = new JarOutputStream(out, new Manifest());
        InputStream classFile = type.getClassLoader().getResourceAsStream(entry)) {
      entries.putNextEntry(new JarEntry(entry));
      classFile.transferTo(entries);
      entries.closeEntry();
    }
    return jar;
  }

  @Test
  void aParentFirstClassThatTheParentHasIsTheParents() throws Exception {
    try (JobClassLoader loader =
        new JobClassLoader(jarOf(Probe.class), getClass().getClassLoader(), "test")) {
      assertThat(loader.loadClass(Probe.class.getName())).isSameAs(Probe.class);
    }
  }

  /**
   * A job's own class in a parent-first package (the Kafka example's {@code io.weir.examples.kafka}
   * beside {@code weir-examples}' {@code io.weir.examples}) is the jar's, not "not found".
   */
  @Test
  void aParentFirstClassThatOnlyTheJarHasIsTheJars() throws Exception {
    try (JobClassLoader loader =
        new JobClassLoader(jarOf(Probe.class), ClassLoader.getPlatformClassLoader(), "test")) {
      Class<?> loaded = loader.loadClass(Probe.class.getName());
      assertThat(loaded.getClassLoader()).isSameAs(loader);
    }
  }

  @Test
  void aChildFirstClassIsTheJarsEvenWhenTheParentHasIt() throws Exception {
    Class<?> job = io.weir.testjobs.KafkaCountJob.class;
    try (JobClassLoader loader = new JobClassLoader(jarOf(job), job.getClassLoader(), "test")) {
      Class<?> loaded = loader.loadClass(job.getName());
      assertThat(loaded).isNotSameAs(job);
      assertThat(loaded.getClassLoader()).isSameAs(loader);
    }
  }
}
