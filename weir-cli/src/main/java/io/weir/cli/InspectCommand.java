package io.weir.cli;

import io.weir.runtime.storage.RetainedCheckpoint;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code weir inspect PATH}: what a checkpoint holds, per operator and subtask; with {@code --dump
 * STATE}, that keyed state's entries as JSON lines. Reads only.
 */
@Command(
    name = "inspect",
    mixinStandardHelpOptions = true,
    description = {
      "Show what a checkpoint holds, or dump a state as JSON lines.",
      "Shows its id, job and time; per operator its uid, name,"
          + " parallelism and max parallelism; per subtask its keyed state (canonical key groups"
          + " or native RocksDB files, key-group range, sizes; for the canonical format the state"
          + " names, kinds, serializers and the bytes per key group), operator state (names,"
          + " modes, element counts), channel state of unaligned checkpoints and source splits.",
      "With --dump STATE, writes that keyed state's entries as JSON lines instead: {\"key\": ...,"
          + " \"value\": ...}, one per key, read with the serializers the checkpoint recorded."
    },
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {
      "0:success",
      "1:PATH is no readable checkpoint, or the state to dump cannot be read",
      "2:invalid arguments"
    })
final class InspectCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Parameters(
      paramLabel = "PATH",
      description =
          "A checkpoint's chk-<n> directory or its _metadata file; a local path or a URI.")
  String path;

  @Option(
      names = "--dump",
      paramLabel = "STATE",
      description = "Write the entries of keyed state STATE as JSON lines to standard output.")
  String dump;

  @Option(
      names = "--operator",
      paramLabel = "UID",
      description =
          "With --dump: the operator (uid or name) whose state to write, when several have"
              + " a state of that name.")
  String operator;

  @Option(
      names = {"--classpath", "-cp"},
      paramLabel = "PATHS",
      split = "${sys:path.separator}",
      description =
          "Jars and directories holding the job's classes, for state of user types (records,"
              + " POJOs); separated by '${sys:path.separator}', or the option repeated.")
  List<Path> classpath = new ArrayList<>();

  @Override
  public Integer call() throws Exception {
    CheckpointPaths.Target target = CheckpointPaths.find(path);
    if (target.jobDirectory()) {
      throw new IOException(
          path
              + " is a job's checkpoint directory: give one of its checkpoints, such as "
              + path
              + "/"
              + target.checkpoints().get(target.checkpoints().size() - 1).name()
              + " (weir checkpoints "
              + path
              + " lists them)");
    }
    RetainedCheckpoint retained = target.checkpoints().get(0).checkpoint();
    PrintWriter out = spec.commandLine().getOut();
    ClassLoader previous = Thread.currentThread().getContextClassLoader();
    try (URLClassLoader loader = classLoader()) {
      Thread.currentThread().setContextClassLoader(loader);
      if (dump != null) {
        new StateDump(dump, operator, path).write(retained, loader, out);
      } else {
        CheckpointSummary.print(retained, loader, out);
      }
    } finally {
      Thread.currentThread().setContextClassLoader(previous);
    }
    out.flush();
    return 0;
  }

  private URLClassLoader classLoader() throws IOException {
    List<URL> urls = new ArrayList<>();
    for (Path p : classpath) {
      if (!Files.exists(p)) {
        throw new IOException(
            "--classpath entry " + p + " does not exist: give the job's jar or classes directory");
      }
      try {
        urls.add(p.toUri().toURL());
      } catch (MalformedURLException e) {
        throw new IOException("--classpath entry " + p + " is not a usable path", e);
      }
    }
    return new URLClassLoader(urls.toArray(URL[]::new), InspectCommand.class.getClassLoader());
  }
}
