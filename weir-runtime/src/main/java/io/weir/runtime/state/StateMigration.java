package io.weir.runtime.state;

import io.weir.api.typeutils.TypeSerializer;
import io.weir.api.typeutils.TypeSerializerSchemaCompatibility;
import io.weir.api.typeutils.TypeSerializerSnapshot;
import io.weir.runtime.recovery.NonRecoverableException;

/**
 * Decides, for one restored state, whether the serializer a job registers now reads what the old
 * one wrote, and says so in the words a user needs when it does not. The job master asks before any
 * task runs (for the key and for the states a function declares); the backends ask again when a
 * state is registered, for the states nobody declared and to know whether to migrate.
 */
public final class StateMigration {

  private StateMigration() {}

  /**
   * The compatibility of {@code now} with the state that {@code old} describes.
   *
   * @throws NonRecoverableException naming operator, state, old and new type when incompatible
   */
  @SuppressWarnings("unchecked")
  public static <T> TypeSerializerSchemaCompatibility<T> resolve(
      String operatorName, String stateName, TypeSerializerSnapshot<?> old, TypeSerializer<T> now) {
    TypeSerializerSchemaCompatibility<T> compatibility =
        ((TypeSerializerSnapshot<T>) old).resolveSchemaCompatibility(now);
    if (compatibility.isIncompatible()) {
      throw new NonRecoverableException(
          incompatibleMessage(
              operatorName, stateName, old.restoreSerializer(), now, compatibility));
    }
    return compatibility;
  }

  /**
   * Resolves the key serializer: keyed state is partitioned by the key's bytes, so anything but
   * compatible-as-is would put keys in other key groups than the ones that hold them.
   *
   * @throws NonRecoverableException naming operator, old and new key type when it changed
   */
  @SuppressWarnings("unchecked")
  public static void checkKey(
      String operatorName, TypeSerializerSnapshot<?> old, TypeSerializer<?> now) {
    TypeSerializerSchemaCompatibility<Object> compatibility =
        ((TypeSerializerSnapshot<Object>) old)
            .resolveSchemaCompatibility((TypeSerializer<Object>) now);
    if (!compatibility.isCompatibleAsIs()) {
      throw new NonRecoverableException(
          "The key of operator '"
              + operatorName
              + "' was "
              + old.restoreSerializer()
              + " in the restored state and is now "
              + now
              + (compatibility.message().isEmpty() ? "" : " (" + compatibility.message() + ")")
              + ". Keyed state is partitioned by its key's bytes, so the key type cannot change"
              + " across a restore: keep the old key type, or start the job without this state.");
    }
  }

  /** The message of an incompatible state: the operator, the state, both types and why. */
  public static String incompatibleMessage(
      String operatorName,
      String stateName,
      TypeSerializer<?> oldSerializer,
      TypeSerializer<?> newSerializer,
      TypeSerializerSchemaCompatibility<?> compatibility) {
    return "State '"
        + stateName
        + "' of operator '"
        + operatorName
        + "' cannot be restored: it was written as "
        + oldSerializer
        + " and the job now declares "
        + newSerializer
        + " ("
        + compatibility.message()
        + "). Records and POJOs may gain and lose fields, but a field or state cannot change its"
        + " type. Restore with the old type, give the new state another name, or start without"
        + " this state.";
  }
}
