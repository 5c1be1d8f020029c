package io.weir.cli.migrate;

import static org.assertj.core.api.Assertions.assertThat;

import com.github.javaparser.StaticJavaParser;
import com.github.javaparser.ast.CompilationUnit;
import com.github.javaparser.ast.ImportDeclaration;
import com.github.javaparser.ast.NodeList;
import com.github.javaparser.ast.expr.SimpleName;
import com.github.javaparser.ast.stmt.BlockStmt;
import com.github.javaparser.ast.stmt.IfStmt;
import com.github.javaparser.ast.stmt.Statement;
import java.io.File;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Flink's word count, migrated by {@code weir migrate}, runs on Weir and prints what it prints on
 * Flink: for each word of its built-in text, a running count (word,1) ... (word,n).
 *
 * <p>What the tool leaves to do by hand in this example is all command-line handling (its CLI class
 * reads the options with Flink's MultipleParameterTool and passes them as GlobalJobParameters) and
 * the file source and sink those options select. This test does that by hand as a user would for
 * the default run: it drops every statement of {@code main} about the options, keeping the else
 * branch of an {@code if} on them (the built-in text, print()), and the CLI class. The pipeline
 * itself (fromData, flatMap, keyBy, sum, print) is the tool's output as it is.
 */
class MigratedWordCountRunTest {

  static final String PACKAGE = "org.apache.flink.streaming.examples.wordcount";

  @TempDir Path tmp;

  @Test
  void theMigratedWordCountPrintsFlinksRunningCounts() throws Exception {
    Path out = tmp.resolve("out");
    MigratedSources.Run run =
        MigratedSources.weir(
            "migrate",
            FlinkExamplesMigrationTest.EXAMPLES.resolve("wordcount").toString(),
            "--output",
            out.toString());
    assertThat(run.exitCode()).as(run.toString()).isZero();

    Path job = tmp.resolve("job");
    Path wordCount = job.resolve("WordCount.java");
    Files.createDirectories(job);
    Files.writeString(wordCount, withoutOptions(Files.readString(out.resolve("WordCount.java"))));
    Files.copy(out.resolve("util/WordCountData.java"), job.resolve("WordCountData.java"));
    assertThat(Files.readString(job.resolve("WordCountData.java")))
        .as("WordCountData has no Flink in it: the tool leaves it as it is")
        .isEqualTo(
            Files.readString(
                FlinkExamplesMigrationTest.EXAMPLES.resolve("wordcount/util/WordCountData.java")));

    Path classes = tmp.resolve("classes");
    assertThat(MigratedSources.compile(job, classes)).isEmpty();

    List<String> printed = runMain(classes, PACKAGE + ".WordCount");
    assertThat(sorted(printed)).isEqualTo(sorted(expectedRunningCounts(classes)));
  }

  /**
   * The hand edit: main without the command-line options, imports of what is gone removed (also
   * MigratedExamplesMatchFlinkTest's, in weir-benchmarks).
   */
  static String withoutOptions(String source) {
    CompilationUnit unit = StaticJavaParser.parse(source);
    unit.getImports()
        .removeIf(
            i ->
                i.getNameAsString().startsWith("org.apache.flink.")
                    && !i.getNameAsString().equals(PACKAGE + ".util.WordCountData"));
    unit.addImport(new ImportDeclaration(PACKAGE + ".util.WordCountData", false, false));
    BlockStmt main =
        unit.findFirst(
                com.github.javaparser.ast.body.MethodDeclaration.class,
                m -> m.getNameAsString().equals("main"))
            .orElseThrow()
            .getBody()
            .orElseThrow();
    NodeList<Statement> kept = new NodeList<>();
    for (Statement statement : main.getStatements()) {
      boolean aboutOptions =
          statement.findAll(SimpleName.class).stream()
              .anyMatch(n -> n.getIdentifier().equals("params"));
      if (!aboutOptions) {
        kept.add(statement);
      } else if (statement instanceof IfStmt branch && branch.getElseStmt().isPresent()) {
        kept.addAll(branch.getElseStmt().get().asBlockStmt().getStatements());
      }
    }
    main.setStatements(kept);
    // WordCountData is now in this package's directory but keeps its package name.
    return unit.toString();
  }

  private static List<String> runMain(Path classes, String mainClass) throws Exception {
    String classPath = classes + File.pathSeparator + System.getProperty("java.class.path");
    Path stdout = Files.createTempFile("wordcount", ".out");
    Process process =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                classPath,
                mainClass)
            .redirectOutput(stdout.toFile())
            .redirectError(ProcessBuilder.Redirect.INHERIT)
            .start();
    assertThat(process.waitFor(120, TimeUnit.SECONDS)).as("the job ended").isTrue();
    assertThat(process.exitValue()).isZero();
    List<String> counts = new ArrayList<>();
    for (String line : Files.readAllLines(stdout, StandardCharsets.UTF_8)) {
      // print() prefixes the subtask ("3> ") when the sink runs in parallel, as Flink's does.
      String record = line.replaceFirst("^\\d+> ", "");
      if (record.startsWith("(")) {
        counts.add(record);
      }
    }
    return counts;
  }

  /** Flink's word count computed in plain Java: the tokenizer's rule, a count per word. */
  private static List<String> expectedRunningCounts(Path classes) throws Exception {
    try (URLClassLoader loader = new URLClassLoader(new URL[] {classes.toUri().toURL()}, null)) {
      Class<?> data = Class.forName(PACKAGE + ".util.WordCountData", true, loader);
      return expectedRunningCounts((String[]) data.getField("WORDS").get(null));
    }
  }

  static List<String> expectedRunningCounts(String[] lines) {
    Map<String, Integer> counts = new TreeMap<>();
    List<String> printed = new ArrayList<>();
    for (String line : lines) {
      for (String token : line.toLowerCase().split("\\W+")) {
        if (!token.isEmpty()) {
          int count = counts.merge(token, 1, Integer::sum);
          printed.add("(" + token + "," + count + ")");
        }
      }
    }
    return printed;
  }

  private static List<String> sorted(List<String> lines) {
    List<String> copy = new ArrayList<>(lines);
    copy.sort(null);
    return copy;
  }
}
