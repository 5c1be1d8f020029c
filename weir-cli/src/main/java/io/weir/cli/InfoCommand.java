package io.weir.cli;

import io.weir.api.config.Configuration;
import io.weir.api.config.KnownKeys;
import io.weir.cluster.client.JobClassLoader;
import io.weir.cluster.client.JobJars;
import io.weir.cluster.client.JobProgram;
import io.weir.cluster.client.ProgramPlan;
import io.weir.cluster.rest.messages.RestJson;
import io.weir.runtime.graph.JobGraph;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicReference;
import java.util.jar.JarFile;
import java.util.jar.Manifest;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code weir info JAR [ARGS]}: the job's plan as JSON, as {@code flink info} prints it. The jar's
 * main runs in this process until it calls {@code execute}, which returns the plan instead of
 * running the job (as on a TaskManager); nothing is started.
 */
@Command(
    name = "info",
    mixinStandardHelpOptions = true,
    description =
        "Print a job jar's plan as JSON (flink info's: one node per operator with its id, type,"
            + " pact, contents, parallelism and predecessors with their ship strategy) without"
            + " running the job. Everything after the jar is the job's arguments.")
final class InfoCommand implements Callable<Integer> {

  /** How long the main may take to call execute. */
  private static final long MAIN_TIMEOUT_MILLIS = 60_000;

  @Option(
      names = {"-c", "--class"},
      description = "The entry class; default the jar's Main-Class.")
  String entryClass;

  @Option(
      names = {"-p", "--parallelism"},
      description = "The job's default parallelism.")
  Integer parallelism;

  @Option(names = "-D", paramLabel = "KEY=VALUE", description = "A job setting.")
  List<String> settings;

  @Parameters(index = "0", paramLabel = "JAR", description = "The job's jar.")
  Path jar;

  @Parameters(
      index = "1..*",
      paramLabel = "ARGS",
      description = "Arguments of the main class: everything after the jar.")
  List<String> args = new ArrayList<>();

  @Override
  public Integer call() throws Exception {
    JobJars.check(jar, jar.toString());
    JobJars.checkEntryClass(jar, jar.toString(), entryClass, InfoCommand.class.getClassLoader());
    Map<String, String> jobSettings = new LinkedHashMap<>(Settings.parse(settings));
    if (parallelism != null) {
      if (parallelism < 1) {
        throw new IllegalArgumentException(
            "-p: the parallelism must be at least 1, not " + parallelism);
      }
      jobSettings.put("parallelism.default", String.valueOf(parallelism));
    }
    Configuration conf = new Configuration();
    jobSettings.forEach(conf::setString);
    KnownKeys.check(conf);
    String entry = entryClass != null ? entryClass : mainClass();
    JobProgram program = new JobProgram(jar.toString(), entry, args, jobSettings);
    AtomicReference<JobGraph> graph = new AtomicReference<>();
    try (JobClassLoader loader =
        new JobClassLoader(jar, InfoCommand.class.getClassLoader(), entry + " of " + jar)) {
      program.run(
          loader,
          pipeline -> {
            graph.set(JobProgram.buildGraph(pipeline, jobSettings));
            throw new JobProgram.PlanCaptured();
          },
          MAIN_TIMEOUT_MILLIS,
          Object.class);
    }
    if (graph.get() == null) {
      throw new CommandFailure(jar + ": its main class " + entry + " executed no job");
    }
    System.out.println(
        RestJson.MAPPER
            .writerWithDefaultPrettyPrinter()
            .writeValueAsString(ProgramPlan.of(graph.get())));
    return 0;
  }

  private String mainClass() throws java.io.IOException {
    try (JarFile file = new JarFile(jar.toFile())) {
      Manifest manifest = file.getManifest();
      String main = manifest == null ? null : manifest.getMainAttributes().getValue("Main-Class");
      if (main == null || main.isBlank()) {
        throw new CommandFailure(
            jar + " names no Main-Class in its manifest: give the entry class with -c CLASS");
      }
      return main.strip();
    }
  }
}
