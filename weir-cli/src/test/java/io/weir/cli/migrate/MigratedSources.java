package io.weir.cli.migrate;

import static org.assertj.core.api.Assertions.assertThat;

import com.github.javaparser.JavaParser;
import com.github.javaparser.ParserConfiguration;
import io.weir.cli.WeirCli;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;

/** Runs {@code weir migrate} in this JVM and compiles what it wrote against Weir's API. */
final class MigratedSources {

  /** What {@code weir migrate} printed and its exit code. */
  record Run(int exitCode, String out, String err) {
    @Override
    public String toString() {
      return "exit " + exitCode + "\n--- stdout\n" + out + "--- stderr\n" + err;
    }
  }

  private MigratedSources() {}

  static Run weir(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int exit =
        WeirCli.commandLine()
            .setOut(new PrintWriter(out, true))
            .setErr(new PrintWriter(err, true))
            .execute(args);
    return new Run(exit, out.toString(), err.toString());
  }

  static List<Path> javaFiles(Path dir) throws IOException {
    try (Stream<Path> walk = Files.walk(dir)) {
      return walk.filter(p -> p.toString().endsWith(".java")).sorted().toList();
    }
  }

  /** Asserts that every Java file under {@code dir} parses as Java 17. */
  static void assertParses(Path dir) throws IOException {
    JavaParser parser =
        new JavaParser(
            new ParserConfiguration().setLanguageLevel(ParserConfiguration.LanguageLevel.JAVA_17));
    for (Path file : javaFiles(dir)) {
      var result = parser.parse(Files.readString(file, StandardCharsets.UTF_8));
      assertThat(result.isSuccessful()).as(file + ": " + result.getProblems()).isTrue();
    }
  }

  /**
   * Asserts that every import of a Flink class left under {@code dir} (but those of the job's own
   * classes, in packages under {@code ownPackage}) is listed as a thing to do, at its line.
   */
  static void assertLeftImportsAreListed(Path dir, String ownPackage, String report)
      throws IOException {
    for (Path file : javaFiles(dir)) {
      List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
      for (int i = 0; i < lines.size(); i++) {
        String line = lines.get(i).strip();
        if (line.matches("import (static )?org\\.apache\\.flink\\..*")
            && !line.matches("import (static )?" + ownPackage.replace(".", "\\.") + "\\..*")) {
          assertThat(report).as(line).contains(file + ":" + (i + 1) + ": ");
        }
      }
    }
  }

  /**
   * Compiles the Java files under {@code dir} into {@code classes} against the test class path
   * (Weir's API, runtime and connectors; no Flink) and returns the errors, each as "File.java:
   * message: symbol", without duplicates.
   */
  static Set<String> compile(Path dir, Path classes) throws IOException {
    return compile(dir, classes, System.getProperty("java.class.path"));
  }

  /**
   * Compiles the Java files under {@code dir} into {@code classes} against {@code classPath} and
   * returns the errors as {@link #compile(Path, Path)} does.
   */
  static Set<String> compile(Path dir, Path classes, String classPath) throws IOException {
    JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
    DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
    Files.createDirectories(classes);
    try (StandardJavaFileManager files =
        compiler.getStandardFileManager(diagnostics, Locale.ROOT, StandardCharsets.UTF_8)) {
      List<String> options =
          List.of(
              "-d",
              classes.toString(),
              "-classpath",
              classPath,
              "-sourcepath",
              "",
              "-proc:none",
              "-nowarn",
              "-Xmaxerrs",
              "1000",
              "--release",
              "17");
      compiler
          .getTask(
              null,
              files,
              diagnostics,
              options,
              null,
              files.getJavaFileObjectsFromPaths(javaFiles(dir)))
          .call();
    }
    Set<String> errors = new TreeSet<>();
    for (Diagnostic<? extends JavaFileObject> d : diagnostics.getDiagnostics()) {
      if (d.getKind() != Diagnostic.Kind.ERROR) {
        continue;
      }
      String file =
          d.getSource() == null ? "?" : Path.of(d.getSource().toUri()).getFileName().toString();
      List<String> message = new ArrayList<>(d.getMessage(Locale.ROOT).lines().toList());
      String summary = message.get(0);
      for (String line : message) {
        if (line.strip().startsWith("symbol:")) {
          summary += ": " + line.strip().substring("symbol:".length()).strip();
        }
      }
      errors.add(file + ": " + summary);
    }
    return errors;
  }
}
