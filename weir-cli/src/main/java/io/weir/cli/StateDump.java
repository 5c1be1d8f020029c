package io.weir.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.weir.api.typeutils.DataInputDeserializer;
import io.weir.runtime.checkpoint.CompletedCheckpoint;
import io.weir.runtime.checkpoint.IncrementalKeyedStateHandle;
import io.weir.runtime.checkpoint.KeyGroupsStateHandle;
import io.weir.runtime.checkpoint.OperatorState;
import io.weir.runtime.checkpoint.OperatorSubtaskState;
import io.weir.runtime.state.HeapSnapshotStrategy;
import io.weir.runtime.storage.CheckpointStateReader;
import io.weir.runtime.storage.RetainedCheckpoint;
import java.io.IOException;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Writes the entries of one keyed state of a checkpoint as JSON lines ({@code weir inspect
 * --dump}): read in the canonical key-group format with the serializers the checkpoint recorded,
 * written with Jackson. Not thread-safe.
 */
final class StateDump {

  private final String dump;
  private final String operator;
  private final String path;

  /**
   * @param state the state's name
   * @param operator the uid or name of the operator that holds it, or null for any
   * @param path the checkpoint as the user gave it, for messages
   */
  StateDump(String state, String operator, String path) {
    this.dump = state;
    this.operator = operator;
    this.path = path;
  }

  void write(RetainedCheckpoint retained, ClassLoader loader, PrintWriter out) throws IOException {
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
                + CanonicalKeyedState.classpathHint(e),
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
      CheckpointStateReader storage,
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
              + CanonicalKeyedState.classpathHint(e),
          e);
    }
  }
}
