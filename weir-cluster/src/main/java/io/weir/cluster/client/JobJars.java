package io.weir.cluster.client;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Enumeration;
import java.util.Optional;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.zip.ZipException;

/** Checks of a job jar made before anything runs it, each naming the jar as the user gave it. */
public final class JobJars {

  /** What a class compiled against Flink's API holds in its constant pool. */
  private static final byte[] FLINK = "org/apache/flink/".getBytes(StandardCharsets.US_ASCII);

  private JobJars() {}

  /**
   * Checks that {@code jar} is a readable jar of a Weir job.
   *
   * @param name the jar as the user named it, for messages
   * @throws IllegalArgumentException naming {@code name}: no such file, not a jar, or a job
   *     compiled against Flink's API
   */
  public static void check(Path jar, String name) {
    if (!Files.exists(jar)) {
      throw new IllegalArgumentException(name + ": no such file");
    }
    if (!Files.isRegularFile(jar) || !Files.isReadable(jar)) {
      throw new IllegalArgumentException(name + ": not a readable file");
    }
    Optional<String> flink;
    try {
      flink = flinkReference(jar);
    } catch (ZipException e) {
      throw new IllegalArgumentException(name + ": not a jar file (" + e.getMessage() + ")", e);
    } catch (IOException e) {
      throw new IllegalArgumentException(name + ": cannot be read (" + e.getMessage() + ")", e);
    }
    flink.ifPresent(
        where -> {
          throw new IllegalArgumentException(
              name
                  + ": this job was compiled against Flink's API; compile it against"
                  + " io.weir:weir-api (see docs/migrating-from-flink.md). "
                  + where);
        });
  }

  /**
   * Checks that {@code jar} has the entry class to run: {@code entryClass}, or without one the
   * {@code Main-Class} of its manifest. A class that {@code parent} (the loader the job's class
   * loader delegates to) has counts too.
   *
   * @param name the jar as the user named it, for messages
   * @throws IllegalArgumentException naming {@code name} and the class
   */
  public static void checkEntryClass(Path jar, String name, String entryClass, ClassLoader parent) {
    try (JarFile file = new JarFile(jar.toFile())) {
      String entry = entryClass;
      if (entry == null || entry.isBlank()) {
        java.util.jar.Manifest manifest = file.getManifest();
        entry = manifest == null ? null : manifest.getMainAttributes().getValue("Main-Class");
        if (entry == null || entry.isBlank()) {
          throw new IllegalArgumentException(
              name + " names no Main-Class in its manifest: give the entry class with -c CLASS");
        }
        entry = entry.strip();
      }
      if (file.getEntry(entry.replace('.', '/') + ".class") == null
          && parent.getResource(entry.replace('.', '/') + ".class") == null) {
        throw new IllegalArgumentException(
            name + " has no class " + entry + ": check the entry class name");
      }
    } catch (IOException e) {
      throw new IllegalArgumentException(name + ": cannot be read (" + e.getMessage() + ")", e);
    }
  }

  /**
   * Where {@code jar}'s own classes (not Flink's, should it bundle them) use a class of Flink's,
   * e.g. {@code "com.example.WordCount uses org.apache.flink.streaming.api..."}; empty if none
   * does.
   */
  static Optional<String> flinkReference(Path jar) throws IOException {
    try (JarFile file = new JarFile(jar.toFile())) {
      Enumeration<JarEntry> entries = file.entries();
      while (entries.hasMoreElements()) {
        JarEntry entry = entries.nextElement();
        String entryName = entry.getName();
        if (!entryName.endsWith(".class") || entryName.startsWith("org/apache/flink/")) {
          continue;
        }
        byte[] bytes;
        try (InputStream in = file.getInputStream(entry)) {
          bytes = in.readAllBytes();
        }
        int at = indexOf(bytes, FLINK);
        if (at >= 0) {
          return Optional.of(
              className(entryName) + " uses " + referencedClass(bytes, at).replace('/', '.'));
        }
      }
    }
    return Optional.empty();
  }

  private static String className(String entryName) {
    return entryName.substring(0, entryName.length() - ".class".length()).replace('/', '.');
  }

  /** The class name that starts at {@code at}: up to the end of the constant or a descriptor. */
  private static String referencedClass(byte[] bytes, int at) {
    int end = at;
    while (end < bytes.length) {
      char c = (char) (bytes[end] & 0xff);
      if (!(Character.isLetterOrDigit(c) || c == '/' || c == '$' || c == '_')) {
        break;
      }
      end++;
    }
    return new String(bytes, at, end - at, StandardCharsets.US_ASCII);
  }

  private static int indexOf(byte[] bytes, byte[] needle) {
    outer:
    for (int i = 0; i <= bytes.length - needle.length; i++) {
      for (int j = 0; j < needle.length; j++) {
        if (bytes[i + j] != needle[j]) {
          continue outer;
        }
      }
      return i;
    }
    return -1;
  }
}
