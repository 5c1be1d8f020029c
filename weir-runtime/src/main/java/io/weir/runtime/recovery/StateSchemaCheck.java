package io.weir.runtime.recovery;

import io.weir.api.functions.RichFunction;
import io.weir.api.graph.Operation;
import io.weir.api.state.ListStateDescriptor;
import io.weir.api.state.MapStateDescriptor;
import io.weir.api.state.StateDescriptor;
import io.weir.api.state.ValueStateDescriptor;
import io.weir.api.typeutils.TypeSerializer;
import io.weir.api.typeutils.TypeSerializerSchemaCompatibility;
import io.weir.api.typeutils.TypeSerializerSnapshot;
import io.weir.runtime.checkpoint.CompletedCheckpoint;
import io.weir.runtime.checkpoint.OperatorState;
import io.weir.runtime.checkpoint.OperatorSubtaskState;
import io.weir.runtime.checkpoint.StateSchema;
import io.weir.runtime.graph.JobGraph;
import io.weir.runtime.graph.JobVertex;
import io.weir.runtime.graph.StreamNode;
import io.weir.runtime.operators.ProcessOperators;
import io.weir.runtime.state.StateMigration;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Checks, at submission and before any task is deployed, the serializer snapshots a checkpoint
 * recorded for every state against the serializers the resumed job declares for the same operator
 * (by operator id, i.e. uid) and state name: the key serializer of every keyed operator, which must
 * be compatible as it is, every state a function declares in {@link RichFunction#usesStates} and
 * the state of a keyed {@code reduce}, which may also need a migration (done by the backend when
 * the state is registered). States that are not declared are checked by the backend when they are
 * registered.
 *
 * <p>A checkpoint written before Weir recorded serializer snapshots (metadata format 2) has none:
 * its states are taken as compatible as they are, as before, and read with the new serializers.
 *
 * <p>Stateless; any thread.
 */
public final class StateSchemaCheck {

  private static final Logger LOG = LoggerFactory.getLogger(StateSchemaCheck.class);

  private StateSchemaCheck() {}

  /**
   * What a state's check found: nothing to do, or a migration on restore.
   *
   * @param operatorName the operator
   * @param stateName the state ({@code <key>} for the key)
   * @param compatibility the answer
   */
  public record Result(
      String operatorName, String stateName, TypeSerializerSchemaCompatibility<?> compatibility) {}

  /**
   * Checks {@code checkpoint} against {@code graph}.
   *
   * @param loader loads the classes the snapshots name (the job's classes)
   * @return every state checked and its compatibility
   * @throws NonRecoverableException naming operator, state, the old and the new type when a state
   *     cannot be restored with the new job's serializers
   */
  public static List<Result> check(
      CompletedCheckpoint checkpoint, JobGraph graph, ClassLoader loader) {
    List<Result> results = new ArrayList<>();
    for (JobVertex vertex : graph.vertices()) {
      for (StreamNode node : vertex.getChain()) {
        OperatorState op = checkpoint.operator(node.getOperatorId());
        if (op != null) {
          checkOperator(node, op, loader, results);
        }
      }
    }
    for (Result r : results) {
      if (!r.compatibility().isCompatibleAsIs()) {
        LOG.info(
            "State '{}' of operator '{}' of checkpoint {} is migrated to its new type on restore",
            r.stateName(),
            r.operatorName(),
            checkpoint.checkpointId());
      }
    }
    return results;
  }

  private static void checkOperator(
      StreamNode node, OperatorState op, ClassLoader loader, List<Result> results) {
    String name = node.getName() + (node.getUid() == null ? "" : " (uid " + node.getUid() + ")");
    if (node.isKeyed()) {
      byte[] key = keySnapshot(op);
      if (key != null) {
        TypeSerializer<?> now = node.getKeyContext1().keyType().createSerializer();
        StateMigration.checkKey(name, read(key, name, "the key", loader), now);
        results.add(new Result(name, "<key>", TypeSerializerSchemaCompatibility.compatibleAsIs()));
      }
    }
    for (StateDescriptor<?> descriptor : declaredStates(node)) {
      StateSchema.Entry entry = entry(op, descriptor.getName());
      if (entry == null) {
        continue; // new state, or an old checkpoint without snapshots
      }
      checkKind(name, descriptor, entry);
      TypeSerializerSchemaCompatibility<?> compatibility =
          StateMigration.resolve(
              name,
              descriptor.getName(),
              read(entry.valueSerializer(), name, descriptor.getName(), loader),
              descriptor.createSerializer());
      if (descriptor instanceof MapStateDescriptor<?, ?> map && entry.mapKeySerializer() != null) {
        TypeSerializerSchemaCompatibility<?> keys =
            StateMigration.resolve(
                name,
                descriptor.getName() + " (map keys)",
                read(entry.mapKeySerializer(), name, descriptor.getName(), loader),
                map.createKeySerializer());
        if (!keys.isCompatibleAsIs()) {
          compatibility = keys;
        }
      }
      results.add(new Result(name, descriptor.getName(), compatibility));
    }
  }

  /**
   * The states {@code node} declares: those of its function's {@link RichFunction#usesStates}, and
   * the state of a keyed {@code reduce} (whose type is the stream's). The states of windows and
   * interval joins are checked when they are registered.
   */
  private static Collection<StateDescriptor<?>> declaredStates(StreamNode node) {
    if (node.isSource()) {
      return List.of();
    }
    Operation operation = node.getOperation();
    if (operation instanceof Operation.Reduce<?> && node.isKeyed()) {
      return List.of(
          new ValueStateDescriptor<>(
              ProcessOperators.REDUCE_STATE, node.getOutputType().createSerializer()));
    }
    return operation.userObject() instanceof RichFunction function
        ? function.usesStates()
        : List.of();
  }

  private static void checkKind(
      String operator, StateDescriptor<?> descriptor, StateSchema.Entry e) {
    boolean same =
        e.kind().isOperatorState()
            ? descriptor instanceof ListStateDescriptor<?>
            : e.kind().name().equals(descriptor.getKind().name());
    if (!same) {
      throw new NonRecoverableException(
          "State '"
              + descriptor.getName()
              + "' of operator '"
              + operator
              + "' was "
              + e.kind()
              + " state in the restored checkpoint and the job now declares it as "
              + descriptor.getKind()
              + " state. A state cannot change its kind: give the new state another name.");
    }
  }

  /** The key serializer snapshot any subtask recorded; null if none did. */
  private static byte[] keySnapshot(OperatorState op) {
    for (OperatorSubtaskState subtask : op.subtasks()) {
      if (subtask.schema() != null && subtask.schema().keySerializer() != null) {
        return subtask.schema().keySerializer();
      }
    }
    return null;
  }

  /** The state's entry in any subtask's schema; null if none recorded it. */
  private static StateSchema.Entry entry(OperatorState op, String stateName) {
    for (OperatorSubtaskState subtask : op.subtasks()) {
      if (subtask.schema() != null && subtask.schema().state(stateName) != null) {
        return subtask.schema().state(stateName);
      }
    }
    return null;
  }

  private static TypeSerializerSnapshot<?> read(
      byte[] bytes, String operator, String what, ClassLoader loader) {
    try {
      return StateSchema.restoreSnapshot(bytes, loader);
    } catch (IOException | RuntimeException e) {
      throw new NonRecoverableException(
          "The serializer that wrote "
              + (what.equals("the key") ? what : "state '" + what + "'")
              + " of operator '"
              + operator
              + "' cannot be read back: "
              + e.getMessage()
              + ". The job must have the classes the state was written with on its classpath.",
          e);
    }
  }
}
