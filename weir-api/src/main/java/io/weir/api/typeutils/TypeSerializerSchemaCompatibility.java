package io.weir.api.typeutils;

/**
 * Whether a new serializer can read state written by an old one.
 *
 * @param kind as-is, after migration (read with the old, write with the new), or not at all
 * @param message why, for incompatible results; for a migration, optionally, what it does
 */
public record TypeSerializerSchemaCompatibility<T>(Kind kind, String message) {

  /** The possible answers. */
  public enum Kind {
    /** The new serializer reads the old bytes directly. */
    COMPATIBLE_AS_IS,
    /** The state must be read with the restored serializer and rewritten with the new one. */
    COMPATIBLE_AFTER_MIGRATION,
    /** The state cannot be carried over. */
    INCOMPATIBLE
  }

  public static <T> TypeSerializerSchemaCompatibility<T> compatibleAsIs() {
    return new TypeSerializerSchemaCompatibility<>(Kind.COMPATIBLE_AS_IS, "");
  }

  public static <T> TypeSerializerSchemaCompatibility<T> compatibleAfterMigration() {
    return new TypeSerializerSchemaCompatibility<>(Kind.COMPATIBLE_AFTER_MIGRATION, "");
  }

  /** A migration, with a note on what it does for a reader who cannot migrate (a key). */
  public static <T> TypeSerializerSchemaCompatibility<T> compatibleAfterMigration(String what) {
    return new TypeSerializerSchemaCompatibility<>(Kind.COMPATIBLE_AFTER_MIGRATION, what);
  }

  public static <T> TypeSerializerSchemaCompatibility<T> incompatible(String why) {
    return new TypeSerializerSchemaCompatibility<>(Kind.INCOMPATIBLE, why);
  }

  public boolean isCompatibleAsIs() {
    return kind == Kind.COMPATIBLE_AS_IS;
  }

  public boolean isIncompatible() {
    return kind == Kind.INCOMPATIBLE;
  }
}
