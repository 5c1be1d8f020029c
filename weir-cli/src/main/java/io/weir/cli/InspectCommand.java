package io.weir.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.weir.api.typeutils.DataInputDeserializer;
import io.weir.runtime.checkpoint.CompletedCheckpoint;
import io.weir.runtime.checkpoint.IncrementalKeyedStateHandle;
import io.weir.runtime.checkpoint.KeyGroupsStateHandle;
import io.weir.runtime.checkpoint.OperatorState;
import io.weir.runtime.checkpoint.OperatorStateHandle;
import io.weir.runtime.checkpoint.OperatorSubtaskState;
import io.weir.runtime.state.HeapSnapshotStrategy;
import io.weir.runtime.storage.CheckpointStorage;
import io.weir.runtime.storage.RetainedCheckpoint;
import io.weir.runtime.storage.StreamStateHandle;
import io.weir.runtime.task.SourceStreamTask;
import io.weir.runtime.task.TaskCheckpointing;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
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
      "Show what a checkpoint holds: its id, job and time; per operator its uid, name,"
          + " parallelism and max parallelism; per subtask its keyed state (canonical key groups"
          + " or native RocksDB files, key-group range, sizes; for the canonical format the state"
          + " names, kinds, serializers and the bytes per key group), operator state (names,"
          + " modes, element counts), channel state of unaligned checkpoints and source splits.",
      "With --dump STATE, write that keyed state's entries as JSON lines instead: {\"key\": ...,"
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
        dump(retained, loader, out);
      } else {
        print(retained, loader, out);
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

  private static void print(RetainedCheckpoint retained, ClassLoader loader, PrintWriter out) {
    CompletedCheckpoint cp = retained.checkpoint();
    long stateSize = 0;
    for (OperatorState op : cp.operators()) {
      for (OperatorSubtaskState s : op.subtasks()) {
        stateSize += s.stateSize();
      }
    }
    out.println((cp.savepoint() ? "Savepoint " : "Checkpoint ") + cp.checkpointId());
    out.println("  job id      " + cp.jobId());
    out.println(
        "  triggered   " + Instant.ofEpochMilli(cp.timestamp()) + " (" + cp.timestamp() + ")");
    out.println("  location    " + retained.externalPointer());
    out.println("  state size  " + Sizes.format(stateSize) + " (" + stateSize + " bytes)");
    out.println("  operators   " + cp.operators().size());
    CheckpointStorage storage = retained.storage();
    for (OperatorState op : cp.operators()) {
      out.println();
      out.println("Operator '" + op.operatorName() + "'");
      out.println("  uid/id           " + op.operatorId());
      out.println("  parallelism      " + op.parallelism());
      out.println("  max parallelism  " + op.maxParallelism());
      for (int i = 0; i < op.subtasks().size(); i++) {
        OperatorSubtaskState subtask = op.subtasks().get(i);
        String prefix = "  subtask " + i;
        if (subtask.keyed() == null && subtask.operator() == null) {
          out.println(prefix + ": no state" + (subtask.finished() ? " (finished)" : ""));
          continue;
        }
        if (subtask.finished()) {
          out.println(prefix + ": finished");
        }
        if (subtask.keyed() instanceof KeyGroupsStateHandle keyed) {
          printCanonical(prefix, keyed, storage, loader, op.operatorName(), out);
        } else if (subtask.keyed() instanceof IncrementalKeyedStateHandle files) {
          printNative(prefix, files, storage, loader, op.operatorName(), out);
        }
        if (subtask.operator() != null) {
          printOperatorState(prefix, subtask.operator(), storage, out);
        }
      }
    }
  }

  private static void printCanonical(
      String prefix,
      KeyGroupsStateHandle keyed,
      CheckpointStorage storage,
      ClassLoader loader,
      String operatorName,
      PrintWriter out) {
    out.println(
        prefix
            + ": keyed state, canonical key groups "
            + keyed.range().startKeyGroup()
            + "-"
            + keyed.range().endKeyGroup()
            + ", "
            + Sizes.format(keyed.stateSize())
            + " "
            + where(keyed.data()));
    CanonicalKeyedState state;
    try {
      state =
          new CanonicalKeyedState(
              storage.readState(keyed.data()),
              keyed.offsets(),
              keyed.range().startKeyGroup(),
              loader,
              operatorName);
    } catch (IOException | RuntimeException | LinkageError e) {
      out.println("    (cannot read it: " + WeirCli.describe(e) + hint(e) + ")");
      return;
    }
    printHeader(state.header(), out);
    StringBuilder sizes = new StringBuilder("    bytes per key group:");
    for (int i = 0; i < keyed.offsets().length; i++) {
      if (i % 16 == 0) {
        sizes
            .append(System.lineSeparator())
            .append(String.format("      %5d:", keyed.range().startKeyGroup() + i));
      }
      sizes.append(' ').append(state.keyGroupSize(i));
    }
    out.println(sizes);
  }

  private static void printHeader(HeapSnapshotStrategy.Header header, PrintWriter out) {
    out.println("    key serializer " + CanonicalKeyedState.describe(header.keySerializer()));
    for (HeapSnapshotStrategy.StateMeta s : header.states()) {
      out.println(
          "    state '"
              + s.name()
              + "' "
              + s.kind()
              + ", value serializer "
              + CanonicalKeyedState.describe(s.valueSerializer())
              + (s.mapKeySerializer() == null
                  ? ""
                  : ", map key serializer " + CanonicalKeyedState.describe(s.mapKeySerializer())));
    }
  }

  private static void printNative(
      String prefix,
      IncrementalKeyedStateHandle files,
      CheckpointStorage storage,
      ClassLoader loader,
      String operatorName,
      PrintWriter out) {
    long shared = files.sharedFiles().stream().mapToLong(f -> f.handle().size()).sum();
    long own = files.privateFiles().stream().mapToLong(f -> f.handle().size()).sum();
    out.println(
        prefix
            + ": keyed state, native RocksDB files of checkpoint "
            + files.checkpointId()
            + ", key groups "
            + files.range().startKeyGroup()
            + "-"
            + files.range().endKeyGroup()
            + ", "
            + Sizes.format(files.stateSize())
            + ": "
            + files.sharedFiles().size()
            + " SST files ("
            + Sizes.format(shared)
            + "), "
            + files.privateFiles().size()
            + " other files ("
            + Sizes.format(own)
            + ")");
    for (IncrementalKeyedStateHandle.SharedFile f : files.sharedFiles()) {
      out.println(
          "    " + f.localName() + " " + Sizes.format(f.handle().size()) + " " + where(f.handle()));
    }
    for (IncrementalKeyedStateHandle.PrivateFile f : files.privateFiles()) {
      out.println(
          "    " + f.localName() + " " + Sizes.format(f.handle().size()) + " " + where(f.handle()));
    }
    try {
      byte[] meta = storage.readState(files.metaData());
      printHeader(
          HeapSnapshotStrategy.readHeader(new DataInputDeserializer(meta), loader, operatorName),
          out);
    } catch (IOException | RuntimeException | LinkageError e) {
      out.println("    (cannot read its state names: " + WeirCli.describe(e) + hint(e) + ")");
    }
    out.println("    (sizes per key group are known only for the canonical format)");
  }

  private static void printOperatorState(
      String prefix, OperatorStateHandle handle, CheckpointStorage storage, PrintWriter out) {
    byte[] data = null;
    String unreadable = null;
    try {
      data = storage.readState(handle.data());
    } catch (IOException e) {
      unreadable = e.getMessage();
    }
    for (Map.Entry<String, OperatorStateHandle.StateMetaInfo> e : handle.states().entrySet()) {
      String name = e.getKey();
      long[] offsets = e.getValue().offsets();
      String kind =
          name.startsWith(TaskCheckpointing.CHANNEL_STATE_PREFIX)
              ? "channel state (in-flight data)"
              : name.equals(SourceStreamTask.SPLITS_STATE) ? "source splits" : "operator state";
      String bytes = "";
      if (data != null) {
        long total = 0;
        for (long offset : offsets) {
          total += 4 + elementLength(data, offset);
        }
        bytes = ", " + Sizes.format(total);
      }
      out.println(
          prefix
              + ": "
              + kind
              + " '"
              + name
              + "' "
              + e.getValue().mode()
              + ", "
              + offsets.length
              + (offsets.length == 1 ? " element" : " elements")
              + bytes);
    }
    if (unreadable != null) {
      out.println("    (cannot read its operator state: " + unreadable + ")");
    }
  }

  private static int elementLength(byte[] data, long offset) {
    int o = (int) offset;
    return ((data[o] & 0xff) << 24)
        | ((data[o + 1] & 0xff) << 16)
        | ((data[o + 2] & 0xff) << 8)
        | (data[o + 3] & 0xff);
  }

  private static String where(StreamStateHandle handle) {
    return handle instanceof StreamStateHandle.File f
        ? "(file " + f.relativePath() + ")"
        : "(inline in _metadata)";
  }

  private static String hint(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof ClassNotFoundException || t instanceof NoClassDefFoundError) {
        return "; give the job's jar with --classpath";
      }
    }
    return "";
  }

  private void dump(RetainedCheckpoint retained, ClassLoader loader, PrintWriter out)
      throws IOException {
    CompletedCheckpoint cp = retained.checkpoint();
    List<OperatorState> matches = new ArrayList<>();
    List<String> everyState = new ArrayList<>();
    for (OperatorState op : cp.operators()) {
      if (operator != null
          && !operator.equals(op.operatorId())
          && !operator.equals(op.operatorName())) {
        continue;
      }
      boolean has = false;
      for (OperatorSubtaskState subtask : op.subtasks()) {
        for (String name : stateNames(subtask, retained.storage(), loader, op.operatorName())) {
          everyState.add("'" + name + "' of " + op.operatorId());
          has |= name.equals(dump);
        }
      }
      if (has) {
        matches.add(op);
      }
    }
    if (matches.isEmpty()) {
      throw new IOException(
          "Checkpoint "
              + cp.checkpointId()
              + " has no keyed state '"
              + dump
              + "'"
              + (operator == null ? "" : " in operator '" + operator + "'")
              + ". Its keyed states: "
              + (everyState.isEmpty()
                  ? "none"
                  : everyState.stream().distinct().collect(Collectors.joining(", ")))
              + " (weir inspect "
              + path
              + " shows them)");
    }
    if (matches.size() > 1) {
      throw new IOException(
          "Keyed state '"
              + dump
              + "' is held by several operators: "
              + matches.stream().map(OperatorState::operatorId).collect(Collectors.joining(", "))
              + ". Choose one with --operator UID");
    }
    OperatorState op = matches.get(0);
    ObjectMapper json = new ObjectMapper().disable(SerializationFeature.FAIL_ON_EMPTY_BEANS);
    for (OperatorSubtaskState subtask : op.subtasks()) {
      if (subtask.keyed() instanceof IncrementalKeyedStateHandle) {
        throw new IOException(
            "Keyed state '"
                + dump
                + "' of operator '"
                + op.operatorName()
                + "' is in native RocksDB files, which --dump cannot read. Dump a checkpoint in"
                + " the canonical format: a heap checkpoint, or a full RocksDB checkpoint with"
                + " state.backend.rocksdb.checkpoint.full-format: canonical");
      }
      if (!(subtask.keyed() instanceof KeyGroupsStateHandle keyed)) {
        continue;
      }
      CanonicalKeyedState state;
      List<CanonicalKeyedState.Entry> entries;
      try {
        state =
            new CanonicalKeyedState(
                retained.storage().readState(keyed.data()),
                keyed.offsets(),
                keyed.range().startKeyGroup(),
                loader,
                op.operatorName());
        entries = state.entries(dump).getOrDefault(dump, List.of());
      } catch (IOException | RuntimeException | LinkageError e) {
        throw new IOException(
            "Cannot read keyed state '"
                + dump
                + "' of operator '"
                + op.operatorName()
                + "': "
                + WeirCli.describe(e)
                + hint(e),
            e);
      }
      for (CanonicalKeyedState.Entry entry : entries) {
        ObjectNode line = json.createObjectNode();
        line.set("key", toJson(json, entry.key()));
        line.set("value", toJson(json, entry.value()));
        out.println(json.writeValueAsString(line));
      }
    }
  }

  private static com.fasterxml.jackson.databind.JsonNode toJson(ObjectMapper json, Object value) {
    try {
      return json.valueToTree(value);
    } catch (IllegalArgumentException e) {
      return json.getNodeFactory().textNode(String.valueOf(value));
    }
  }

  private static List<String> stateNames(
      OperatorSubtaskState subtask,
      CheckpointStorage storage,
      ClassLoader loader,
      String operatorName)
      throws IOException {
    byte[] header;
    if (subtask.keyed() instanceof KeyGroupsStateHandle keyed) {
      header = storage.readState(keyed.data());
    } else if (subtask.keyed() instanceof IncrementalKeyedStateHandle files) {
      header = storage.readState(files.metaData());
    } else {
      return List.of();
    }
    try {
      return HeapSnapshotStrategy.readHeader(
              new DataInputDeserializer(header), loader, operatorName)
          .states()
          .stream()
          .map(HeapSnapshotStrategy.StateMeta::name)
          .toList();
    } catch (IOException | RuntimeException | LinkageError e) {
      throw new IOException(
          "Cannot read the keyed state of operator '"
              + operatorName
              + "': "
              + WeirCli.describe(e)
              + hint(e),
          e);
    }
  }
}
