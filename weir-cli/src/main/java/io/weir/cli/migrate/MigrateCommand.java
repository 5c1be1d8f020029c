package io.weir.cli.migrate;

import io.weir.cli.migrate.Migration.FileResult;
import io.weir.cli.migrate.SourceMigrator.Finding;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code weir migrate SRC_DIR}: rewrites the sources of a Flink DataStream job for Weir (in place,
 * into {@code --output DIR}, or only shown with {@code --dry-run}) and lists, by file and line,
 * what it could not translate. See docs/migrating-from-flink.md.
 */
@Command(
    name = "migrate",
    mixinStandardHelpOptions = true,
    description = {
      "Rewrite a Flink DataStream job's sources for Weir: imports (single, wildcard, static),"
          + " qualified names, renamed classes and calls. Lists by file:line what it could not"
          + " translate (a Flink class without a Weir counterpart, the Table API, batch mode...)."
          + " Line numbers are those of the original sources.",
      "Rewrites the files in place unless --output or --dry-run is given."
    })
public final class MigrateCommand implements Callable<Integer> {

  @Parameters(
      index = "0",
      paramLabel = "SRC_DIR",
      description = "The job's source directory (e.g. src/main/java, or the project's root).")
  Path sourceDir;

  @Option(
      names = {"-o", "--output"},
      paramLabel = "DIR",
      description =
          "Write the migrated tree (every file, changed or not) here instead of rewriting"
              + " SRC_DIR; a new or empty directory outside SRC_DIR.")
  Path outputDir;

  @Option(
      names = "--dry-run",
      description = "Write nothing: print the changes as a unified diff, then the summary.")
  boolean dryRun;

  @Spec CommandSpec spec;

  @Override
  public Integer call() throws IOException {
    Path source = sourceDir.toAbsolutePath().normalize();
    if (!Files.exists(source)) {
      throw new MigrationException(sourceDir + ": no such directory");
    }
    if (!Files.isDirectory(source)) {
      throw new MigrationException(
          sourceDir + ": not a directory; give the directory that holds the job's sources");
    }
    Path target = outputDir == null ? null : outputDir.toAbsolutePath().normalize();
    if (target != null) {
      checkOutputDir(source, target);
    }
    List<FileResult> results = Migration.run(source, FlinkToWeirMap.load());
    if (results.stream().noneMatch(r -> r.path().toString().endsWith(".java"))) {
      throw new MigrationException(sourceDir + ": holds no .java files");
    }

    PrintWriter out = spec.commandLine().getOut();
    if (dryRun) {
      for (FileResult result : results) {
        if (result.changed()) {
          out.print(UnifiedDiff.of(result.path().toString(), result.original(), result.migrated()));
        }
      }
    } else if (target != null) {
      copyTree(source, target);
      Migration.write(results, target);
    } else {
      Migration.write(results, source);
    }
    printSummary(out, results, target == null ? sourceDir : outputDir);
    out.flush();
    return 0;
  }

  private void checkOutputDir(Path source, Path target) throws IOException {
    if (target.startsWith(source) || source.startsWith(target)) {
      throw new MigrationException(
          outputDir + ": the output directory must be outside SRC_DIR (and not hold it)");
    }
    if (Files.exists(target)) {
      if (!Files.isDirectory(target)) {
        throw new MigrationException(outputDir + ": exists and is not a directory");
      }
      try (Stream<Path> entries = Files.list(target)) {
        if (entries.findAny().isPresent()) {
          throw new MigrationException(
              outputDir + ": not empty; give a new or empty directory for the migrated sources");
        }
      }
    }
  }

  /** Copies SRC_DIR's files, so the output is the whole job; the migrated ones overwrite them. */
  private static void copyTree(Path source, Path target) throws IOException {
    try (Stream<Path> walk = Files.walk(source)) {
      for (Path file : (Iterable<Path>) walk.filter(Files::isRegularFile)::iterator) {
        Path relative = source.relativize(file);
        if (relative.startsWith(".git") || relative.startsWith("target")) {
          continue;
        }
        Path copy = target.resolve(relative);
        Files.createDirectories(copy.getParent());
        Files.copy(file, copy, StandardCopyOption.REPLACE_EXISTING);
      }
    }
  }

  private void printSummary(PrintWriter out, List<FileResult> results, Path shownDir) {
    int files = 0;
    int changedFiles = 0;
    int changes = 0;
    int todo = 0;
    for (FileResult result : results) {
      if (result.path().toString().endsWith(".java")) {
        files++;
      }
      if (result.changed()) {
        changedFiles++;
        changes += result.changes();
      }
      todo += result.todo().size();
    }
    String where =
        dryRun
            ? " (dry run: nothing written)"
            : outputDir != null ? " into " + outputDir : " in place";
    out.printf(
        "Migrated %d of %d Java files (%d changes)%s.%n", changedFiles, files, changes, where);
    if (todo == 0) {
      out.println("Nothing left to do by hand.");
    } else {
      out.printf("To do by hand (%d):%n", todo);
      for (FileResult result : results) {
        for (Finding finding : result.todo()) {
          out.printf(
              "  %s:%d: %s%n", shownDir.resolve(result.path()), finding.line(), finding.message());
        }
      }
    }
    boolean notes = results.stream().anyMatch(r -> !r.notes().isEmpty());
    if (notes) {
      out.println("Changed beyond names (check these):");
      for (FileResult result : results) {
        for (Finding finding : result.notes()) {
          out.printf(
              "  %s:%d: %s%n", shownDir.resolve(result.path()), finding.line(), finding.message());
        }
      }
    }
  }
}
