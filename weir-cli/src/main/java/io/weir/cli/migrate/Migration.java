package io.weir.cli.migrate;

import com.github.javaparser.JavaParser;
import com.github.javaparser.ParseResult;
import com.github.javaparser.ParserConfiguration;
import com.github.javaparser.Problem;
import com.github.javaparser.ast.CompilationUnit;
import com.github.javaparser.ast.body.TypeDeclaration;
import io.weir.cli.migrate.SourceMigrator.Finding;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.MalformedInputException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

/**
 * The migration of a source tree: every {@code .java} file under it parsed first (one that does not
 * parse stops it before anything is written), then each rewritten by a {@link SourceMigrator} that
 * knows the tree's own types. Build files that name Flink artifacts are listed too.
 */
public final class Migration {

  /** One file of the tree: its text before and after, and what is left to do by hand. */
  public record FileResult(
      Path path,
      String original,
      String migrated,
      int changes,
      List<Finding> todo,
      List<Finding> notes) {
    public boolean changed() {
      return !original.equals(migrated);
    }
  }

  private Migration() {}

  /**
   * Migrates the files under {@code sourceDir} in memory and returns them, sorted by path.
   *
   * @throws MigrationException naming the file and line of a file that does not parse
   */
  public static List<FileResult> run(Path sourceDir, FlinkToWeirMap map) throws IOException {
    List<Path> files;
    try (Stream<Path> walk = Files.walk(sourceDir)) {
      files =
          walk.filter(Files::isRegularFile)
              .filter(
                  p ->
                      !isUnder(sourceDir.relativize(p), ".git")
                          && !isUnder(sourceDir.relativize(p), "target"))
              .sorted()
              .toList();
    }
    JavaParser parser =
        new JavaParser(
            new ParserConfiguration().setLanguageLevel(ParserConfiguration.LanguageLevel.JAVA_17));
    Map<Path, String> texts = new LinkedHashMap<>();
    Map<Path, CompilationUnit> units = new LinkedHashMap<>();
    Set<String> localTypes = new HashSet<>();
    for (Path file : files) {
      String name = file.getFileName().toString();
      if (name.endsWith(".java")) {
        String text = read(sourceDir, file);
        ParseResult<CompilationUnit> parsed = parser.parse(text);
        if (!parsed.isSuccessful() || parsed.getResult().isEmpty()) {
          throw new MigrationException(describe(sourceDir.relativize(file), parsed.getProblems()));
        }
        CompilationUnit unit = parsed.getResult().get();
        texts.put(file, text);
        units.put(file, unit);
        collectTypes(unit, localTypes);
      } else if (name.equals("pom.xml") || name.startsWith("build.gradle")) {
        texts.put(file, read(sourceDir, file));
      }
    }
    SourceMigrator migrator = new SourceMigrator(map, localTypes);
    List<FileResult> results = new ArrayList<>();
    for (Map.Entry<Path, String> entry : texts.entrySet()) {
      Path relative = sourceDir.relativize(entry.getKey());
      CompilationUnit unit = units.get(entry.getKey());
      if (unit == null) {
        results.add(buildFile(relative, entry.getValue()));
      } else {
        SourceMigrator.Result result = migrator.migrate(unit, entry.getValue());
        results.add(
            new FileResult(
                relative,
                entry.getValue(),
                result.text(),
                result.changes(),
                result.todo(),
                result.notes()));
      }
    }
    return results;
  }

  private static boolean isUnder(Path relative, String directory) {
    for (int i = 0; i < relative.getNameCount() - 1; i++) {
      if (relative.getName(i).toString().equals(directory)) {
        return true;
      }
    }
    return false;
  }

  private static String read(Path sourceDir, Path file) throws IOException {
    try {
      return Files.readString(file, StandardCharsets.UTF_8);
    } catch (MalformedInputException e) {
      throw new MigrationException(
          sourceDir.relativize(file) + ": not UTF-8 text; convert it to UTF-8 first");
    }
  }

  private static String describe(Path file, List<Problem> problems) {
    if (problems.isEmpty()) {
      return file + ": cannot be parsed as Java";
    }
    Problem first = problems.get(0);
    String where =
        first
            .getLocation()
            .flatMap(l -> l.getBegin().getRange())
            .map(r -> ":" + r.begin.line + ":" + r.begin.column)
            .orElse("");
    String message = first.getMessage().lines().findFirst().orElse("").strip();
    return file
        + where
        + ": cannot be parsed as Java 17: "
        + message
        + (problems.size() > 1 ? " (and " + (problems.size() - 1) + " more problems)" : "");
  }

  private static void collectTypes(CompilationUnit unit, Set<String> localTypes) {
    String prefix = unit.getPackageDeclaration().map(p -> p.getNameAsString() + ".").orElse("");
    for (TypeDeclaration<?> type : unit.getTypes()) {
      collectTypes(prefix, type, localTypes);
    }
  }

  private static void collectTypes(String prefix, TypeDeclaration<?> type, Set<String> localTypes) {
    String name = prefix + type.getNameAsString();
    localTypes.add(name);
    for (var member : type.getMembers()) {
      if (member instanceof TypeDeclaration<?> nested) {
        collectTypes(name + ".", nested, localTypes);
      }
    }
  }

  /** A build file is not rewritten; its Flink dependencies are listed. */
  private static FileResult buildFile(Path relative, String text) {
    List<Finding> todo = new ArrayList<>();
    List<String> lines = text.lines().toList();
    for (int i = 0; i < lines.size(); i++) {
      if (lines.get(i).contains("org.apache.flink")) {
        todo.add(
            new Finding(
                i + 1,
                "a Flink artifact: depend on io.weir:weir-api (scope provided) and Weir's"
                    + " connectors instead (see docs/writing-a-job.md)"));
      }
    }
    return new FileResult(relative, text, text, 0, todo, List.of());
  }

  /** Writes the migrated text of each file that changed under {@code targetDir}. */
  public static void write(List<FileResult> results, Path targetDir) {
    for (FileResult result : results) {
      if (!result.changed()) {
        continue;
      }
      Path target = targetDir.resolve(result.path());
      try {
        Files.createDirectories(target.getParent());
        Files.writeString(target, result.migrated(), StandardCharsets.UTF_8);
      } catch (IOException e) {
        throw new UncheckedIOException("Cannot write " + target + ": " + e.getMessage(), e);
      }
    }
  }
}
