package io.weir.cli;

import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.stream.Stream;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;

/** Job jars for the CLI's tests, made from the test classes or compiled on the spot. */
final class TestJars {

  private static final Path CLASSES = Path.of("target", "test-classes");

  private TestJars() {}

  /**
   * A jar of the test jobs: {@code io.weir.cli.testjobs} and the user's {@code
   * com.example.weirtest}; {@code mainClass} its Main-Class, or null for none.
   */
  static Path jobJar(Path target, String mainClass) throws Exception {
    Manifest manifest = new Manifest();
    manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
    if (mainClass != null) {
      manifest.getMainAttributes().put(Attributes.Name.MAIN_CLASS, mainClass);
    }
    try (OutputStream file = Files.newOutputStream(target);
        JarOutputStream out = new JarOutputStream(file, manifest)) {
      for (String pkg : List.of("io/weir/cli/testjobs", "com/example/weirtest")) {
        try (Stream<Path> files = Files.walk(CLASSES.resolve(pkg))) {
          for (Path p : files.filter(Files::isRegularFile).toList()) {
            out.putNextEntry(new JarEntry(CLASSES.relativize(p).toString().replace('\\', '/')));
            out.write(Files.readAllBytes(p));
            out.closeEntry();
          }
        }
      }
    }
    return target;
  }

  /**
   * A jar of a job written against Flink's API, as a Flink user's build makes it: its class
   * compiled against (a stand-in of) Flink's {@code StreamExecutionEnvironment}, which the jar does
   * not hold.
   */
  static Path flinkJobJar(Path target) throws Exception {
    Path src = Files.createTempDirectory(target.getParent(), "flink-src");
    Path flinkEnv = src.resolve("org/apache/flink/streaming/api/environment");
    Files.createDirectories(flinkEnv);
    Files.writeString(
        flinkEnv.resolve("StreamExecutionEnvironment.java"),
        "package org.apache.flink.streaming.api.environment;\n"
            + "public class StreamExecutionEnvironment {\n"
            + "  public static StreamExecutionEnvironment getExecutionEnvironment() {"
            + " return new StreamExecutionEnvironment(); }\n"
            + "  public void execute(String name) {}\n"
            + "}\n");
    Path job = src.resolve("com/example/flinkjob");
    Files.createDirectories(job);
    Files.writeString(
        job.resolve("WordCount.java"),
        "package com.example.flinkjob;\n"
            + "import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;\n"
            + "public class WordCount {\n"
            + "  public static void main(String[] args) {\n"
            + "    StreamExecutionEnvironment.getExecutionEnvironment().execute(\"word count\");\n"
            + "  }\n"
            + "}\n");
    Path classes = Files.createDirectories(src.resolve("classes"));
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    int rc =
        javac.run(
            null,
            null,
            null,
            "-d",
            classes.toString(),
            flinkEnv.resolve("StreamExecutionEnvironment.java").toString(),
            job.resolve("WordCount.java").toString());
    if (rc != 0) {
      throw new IllegalStateException("javac failed: " + rc);
    }
    Manifest manifest = new Manifest();
    manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
    manifest.getMainAttributes().put(Attributes.Name.MAIN_CLASS, "com.example.flinkjob.WordCount");
    try (OutputStream file = Files.newOutputStream(target);
        JarOutputStream out = new JarOutputStream(file, manifest)) {
      // Flink's classes are the cluster's, never in the job's jar.
      out.putNextEntry(new JarEntry("com/example/flinkjob/WordCount.class"));
      out.write(Files.readAllBytes(classes.resolve("com/example/flinkjob/WordCount.class")));
      out.closeEntry();
      out.putNextEntry(new JarEntry("README.txt"));
      out.write("a Flink job".getBytes(StandardCharsets.UTF_8));
      out.closeEntry();
    }
    return target;
  }
}
