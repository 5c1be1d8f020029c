package io.weir.runtime.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.weir.api.config.Configuration;
import java.net.URI;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * File systems found through {@link java.util.ServiceLoader}: also in a job's own class loader, one
 * per scheme, authority and settings, configured by the job.
 */
class FileSystemFactoryLookupTest {

  @TempDir Path services;

  @AfterEach
  void forget() {
    FileSystems.closeAll();
  }

  /** Serves {@code lookupfs://}; a local file system underneath, tagged with its settings. */
  public static final class LookupFactory implements FileSystemFactory {
    @Override
    public String scheme() {
      return "lookupfs";
    }

    @Override
    public List<String> configPrefixes() {
      return List.of("lookupfs.");
    }

    @Override
    public FileSystem create(URI uri, Configuration conf) {
      return new ForwardingFileSystem("lookupfs") {
        @Override
        public String toString() {
          return uri.getAuthority() + ":" + conf.getString("lookupfs.tag", "none");
        }
      };
    }
  }

  @Test
  void aFactoryInTheJobsClassLoaderIsFoundAndConfiguredByTheJob() throws Exception {
    assertThatThrownBy(() -> FileSystems.get(URI.create("lookupfs://a/x")))
        .hasMessageContaining("'lookupfs' is not supported");

    Path file = services.resolve("META-INF/services/" + FileSystemFactory.class.getName());
    Files.createDirectories(file.getParent());
    Files.writeString(file, LookupFactory.class.getName() + "\n");
    ClassLoader before = Thread.currentThread().getContextClassLoader();
    try (URLClassLoader jobLoader =
        new URLClassLoader(new URL[] {services.toUri().toURL()}, getClass().getClassLoader())) {
      Thread.currentThread().setContextClassLoader(jobLoader);
      Configuration one = new Configuration().setString("lookupfs.tag", "one");
      FileSystem first = FileSystems.get(URI.create("lookupfs://a/x"), one);
      assertThat(first).hasToString("a:one");
      // Other keys do not matter; the same settings give the same file system.
      assertThat(FileSystems.get(URI.create("lookupfs://a/y"), one.setString("other", "1")))
          .isSameAs(first);
      assertThat(FileSystems.get(URI.create("lookupfs://b/x"), one)).hasToString("b:one");
      FileSystem second =
          FileSystems.get(
              URI.create("lookupfs://a/x"), new Configuration().setString("lookupfs.tag", "two"));
      assertThat(second).hasToString("a:two");
      assertThat(FileSystems.get(URI.create("lookupfs://a/z"))).isSameAs(second);
      assertThat(FileSystems.pathOf(URI.create("lookupfs://a/z/"))).isEqualTo("/z");
    } finally {
      Thread.currentThread().setContextClassLoader(before);
    }
  }

  /**
   * A factory a job's class loader brought serves that job only, and is forgotten with the loader:
   * neither another job nor Weir's own class path finds it, and a job that ends closes what it
   * made.
   */
  @Test
  void aFactoryOfAJobsClassLoaderServesThatJobOnlyAndIsForgottenWithIt() throws Exception {
    Path file = services.resolve("META-INF/services/" + FileSystemFactory.class.getName());
    Files.createDirectories(file.getParent());
    Files.writeString(file, LookupFactory.class.getName() + "\n");
    ClassLoader before = Thread.currentThread().getContextClassLoader();
    URI uri = URI.create("lookupfs://a/x");
    Configuration conf = new Configuration().setString("lookupfs.tag", "one");
    try (URLClassLoader first =
            new URLClassLoader(new URL[] {services.toUri().toURL()}, getClass().getClassLoader());
        URLClassLoader second =
            new URLClassLoader(new URL[] {services.toUri().toURL()}, getClass().getClassLoader())) {
      Thread.currentThread().setContextClassLoader(first);
      FileSystem ofFirst = FileSystems.get(uri, conf);
      Thread.currentThread().setContextClassLoader(second);
      FileSystem ofSecond = FileSystems.get(uri, conf);
      assertThat(ofSecond).as("each job its own").isNotSameAs(ofFirst);

      Thread.currentThread().setContextClassLoader(before);
      assertThatThrownBy(() -> FileSystems.get(uri, conf))
          .as("Weir's own class path does not have it")
          .hasMessageContaining("'lookupfs' is not supported");

      FileSystems.forget(first);
      Thread.currentThread().setContextClassLoader(second);
      assertThat(FileSystems.get(uri, conf)).as("the other job keeps its own").isSameAs(ofSecond);
      Thread.currentThread().setContextClassLoader(first);
      assertThat(FileSystems.get(uri, conf))
          .as("made anew for a loader that was forgotten")
          .isNotSameAs(ofFirst);
    } finally {
      Thread.currentThread().setContextClassLoader(before);
    }
  }
}
