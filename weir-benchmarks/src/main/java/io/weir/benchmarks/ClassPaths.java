package io.weir.benchmarks;

import java.io.File;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The class path of a child JVM, per engine. Weir's RocksDB backend brings {@code
 * org.rocksdb:rocksdbjni} and Flink's brings {@code com.ververica:frocksdbjni}: two builds of the
 * same {@code org.rocksdb} package, so whichever jar came first would silently serve both engines.
 * {@code mvn package} therefore writes two files beside {@code target/classes}: {@code
 * classpath-weir.txt} (no Flink) for Weir and the plain-Java limit, {@code classpath-flink.txt} (no
 * Weir RocksDB backend, no Weir Kafka connector) for Flink, which also gets the jars of {@code
 * target/flink-lib/} first (Flink's own kafka-clients).
 *
 * @param weir the class path of Weir's and the plain limit's children
 * @param flink the class path of Flink's children
 */
record ClassPaths(String weir, String flink) {
  static final String WEIR_FILE = "classpath-weir.txt";
  static final String FLINK_FILE = "classpath-flink.txt";

  /**
   * Jars that Flink's children get ahead of {@link #FLINK_FILE}, at versions the module's own
   * resolution cannot give them: the kafka-clients that flink-connector-kafka was built against.
   */
  static final String FLINK_LIB = "flink-lib";

  private static final Pattern SEPARATOR = Pattern.compile(Pattern.quote(File.pathSeparator));

  ClassPaths {
    refuseBothRocksDbBuilds(weir);
    refuseBothRocksDbBuilds(flink);
  }

  /** The class path for a child of {@code engine}. */
  String of(Engine engine) {
    return engine == Engine.FLINK ? flink : weir;
  }

  /** How a report or error message shows the class path of {@code engine}'s children. */
  static String shown(Engine engine) {
    return engine == Engine.FLINK
        ? "target/classes:target/" + FLINK_LIB + "/*:$(cat target/" + FLINK_FILE + ")"
        : "target/classes:$(cat target/" + WEIR_FILE + ")";
  }

  /**
   * This module's {@code target/classes} plus the per-engine dependency files beside it; failing
   * those (run from an IDE), this JVM's own class path for both, still checked.
   */
  static ClassPaths ofModule() throws IOException {
    Path classes;
    try {
      classes =
          Path.of(SideBySide.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    } catch (URISyntaxException | SecurityException e) {
      return sameForBoth();
    }
    Path weirFile = classes.resolveSibling(WEIR_FILE);
    Path flinkFile = classes.resolveSibling(FLINK_FILE);
    if (!Files.isDirectory(classes)) {
      return sameForBoth();
    }
    if (!Files.isRegularFile(weirFile) || !Files.isRegularFile(flinkFile)) {
      throw new IOException(
          "Missing "
              + weirFile
              + " or "
              + flinkFile
              + ": build with 'mvn -pl weir-benchmarks -am package' first.");
    }
    StringBuilder flinkLib = new StringBuilder();
    Path flinkLibDir = classes.resolveSibling(FLINK_LIB);
    if (Files.isDirectory(flinkLibDir)) {
      try (var jars = Files.list(flinkLibDir)) {
        jars.map(Path::toString)
            .filter(jar -> jar.endsWith(".jar"))
            .sorted()
            .forEach(jar -> flinkLib.append(jar).append(File.pathSeparator));
      }
    }
    return new ClassPaths(
        classes + File.pathSeparator + Files.readString(weirFile).strip(),
        classes + File.pathSeparator + flinkLib + Files.readString(flinkFile).strip());
  }

  private static ClassPaths sameForBoth() {
    String own = System.getProperty("java.class.path");
    return new ClassPaths(own, own);
  }

  private static void refuseBothRocksDbBuilds(String classpath) {
    List<String> jars =
        SEPARATOR
            .splitAsStream(classpath)
            .map(entry -> entry.substring(entry.lastIndexOf(File.separatorChar) + 1))
            .toList();
    boolean rocksdbjni = jars.stream().anyMatch(jar -> jar.startsWith("rocksdbjni"));
    boolean frocksdbjni = jars.stream().anyMatch(jar -> jar.startsWith("frocksdbjni"));
    if (rocksdbjni && frocksdbjni) {
      throw new IllegalArgumentException(
          "A child class path holds both rocksdbjni (Weir's RocksDB backend) and frocksdbjni"
              + " (Flink's): they ship the same org.rocksdb package. Build with 'mvn -pl"
              + " weir-benchmarks -am package' and run through target/"
              + WEIR_FILE
              + " and target/"
              + FLINK_FILE
              + ", not one class path with everything.");
    }
  }
}
