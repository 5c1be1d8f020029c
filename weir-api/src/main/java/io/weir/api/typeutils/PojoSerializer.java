package io.weir.api.typeutils;

import java.io.IOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

/**
 * Plain Java objects with a no-argument constructor, field by field: every non-static,
 * non-transient field of the class and its superclasses, sorted by name, each non-primitive one
 * behind a null marker. Reads call the no-argument constructor, then set the fields.
 *
 * <p>Each value starts with a tag byte, as in Flink's {@code PojoSerializer}: the class itself (its
 * fields follow), {@code null}, or a subclass, which is written with Kryo with its class name so
 * that it keeps its class and its own fields. Serializers restored from snapshots of version 1
 * (written before Weir inferred POJOs) read and write values without the tag.
 *
 * <p>A serializer restored from a snapshot reads the fields as they were written (by name), so a
 * class that gained or lost fields can still be restored: lost fields are dropped, new ones keep
 * what the constructor gave them (their initializer, or {@code null}, {@code 0}, {@code false}).
 * Such a serializer only reads.
 */
final class PojoSerializer<T> extends TypeSerializer<T> {

  private static final byte EXACT = 0;
  private static final byte NULL = 1;
  private static final byte SUBCLASS = 2;

  private final Class<T> pojoClass;

  /** Whether each value starts with a tag: null, the class itself, or a subclass. */
  private final boolean tagged;

  /** Subclass values, created on first use: Kryo keeps scratch state, so one per duplicate. */
  private KryoSerializer<T> subclasses;

  // The written layout, one entry per serialized field.
  private final String[] fieldNames;
  private final boolean[] nullable;
  private final TypeSerializer<Object>[] fieldSerializers;

  // How the layout maps onto the class as it is now: null where the class lost the field.
  private final Field[] fields;
  private final boolean sameLayout;
  private final Constructor<T> constructor;

  /** A serializer for the class as it is now, one serializer per field of {@link #fieldsOf}. */
  PojoSerializer(Class<T> pojoClass, TypeSerializer<?>[] fieldSerializers) {
    this(pojoClass, currentNames(pojoClass), currentNullable(pojoClass), fieldSerializers, true);
  }

  /** A serializer for data written with the given layout. */
  @SuppressWarnings("unchecked")
  PojoSerializer(
      Class<T> pojoClass,
      String[] fieldNames,
      boolean[] nullable,
      TypeSerializer<?>[] fieldSerializers,
      boolean tagged) {
    if (fieldNames.length != nullable.length || fieldNames.length != fieldSerializers.length) {
      throw new IllegalArgumentException("One name, nullability and serializer per field");
    }
    this.pojoClass = pojoClass;
    this.tagged = tagged;
    this.fieldNames = fieldNames.clone();
    this.nullable = nullable.clone();
    this.fieldSerializers = (TypeSerializer<Object>[]) fieldSerializers.clone();
    List<Field> current = fieldsOf(pojoClass);
    this.fields = new Field[fieldNames.length];
    for (int i = 0; i < fieldNames.length; i++) {
      for (Field f : current) {
        if (f.getName().equals(fieldNames[i])) {
          fields[i] = f;
        }
      }
    }
    this.sameLayout =
        Arrays.equals(this.fieldNames, currentNames(pojoClass))
            && Arrays.equals(this.nullable, currentNullable(pojoClass));
    try {
      this.constructor = pojoClass.getDeclaredConstructor();
      constructor.setAccessible(true);
    } catch (NoSuchMethodException | RuntimeException e) {
      throw new InvalidTypesException(
          pojoClass.getName()
              + " is not a POJO Weir can create: it needs an accessible constructor without"
              + " arguments ("
              + e
              + ")",
          e);
    }
  }

  /** The serialized fields of {@code pojoClass}: instance, non-transient, sorted by name. */
  static List<Field> fieldsOf(Class<?> pojoClass) {
    List<Field> fields = new ArrayList<>();
    for (Class<?> c = pojoClass; c != null && c != Object.class; c = c.getSuperclass()) {
      for (Field f : c.getDeclaredFields()) {
        int m = f.getModifiers();
        if (Modifier.isStatic(m) || Modifier.isTransient(m) || f.isSynthetic()) {
          continue;
        }
        try {
          f.setAccessible(true);
        } catch (RuntimeException e) {
          throw new InvalidTypesException(
              "Weir cannot access field '"
                  + f.getName()
                  + "' of POJO "
                  + pojoClass.getName()
                  + ": "
                  + e.getMessage()
                  + ". Open its package to Weir or make the field transient",
              e);
        }
        fields.add(f);
      }
    }
    fields.sort(Comparator.comparing(Field::getName));
    for (int i = 1; i < fields.size(); i++) {
      if (fields.get(i).getName().equals(fields.get(i - 1).getName())) {
        throw new InvalidTypesException(
            "POJO "
                + pojoClass.getName()
                + " has two fields named '"
                + fields.get(i).getName()
                + "' (one hides a superclass field); rename one");
      }
    }
    return fields;
  }

  private static String[] currentNames(Class<?> pojoClass) {
    return fieldsOf(pojoClass).stream().map(Field::getName).toArray(String[]::new);
  }

  private static boolean[] currentNullable(Class<?> pojoClass) {
    List<Field> fields = fieldsOf(pojoClass);
    boolean[] nullable = new boolean[fields.size()];
    for (int i = 0; i < nullable.length; i++) {
      nullable[i] = !fields.get(i).getType().isPrimitive();
    }
    return nullable;
  }

  Class<T> pojoClass() {
    return pojoClass;
  }

  @Override
  public boolean isImmutableType() {
    return false;
  }

  @Override
  public TypeSerializer<T> duplicate() {
    TypeSerializer<?>[] duplicates = CompositeSerializers.duplicateAll(fieldSerializers);
    return duplicates == fieldSerializers && !tagged
        ? this
        : new PojoSerializer<>(pojoClass, fieldNames, nullable, duplicates, tagged);
  }

  private KryoSerializer<T> subclasses() {
    if (subclasses == null) {
      subclasses = new KryoSerializer<>(pojoClass); // writes the class: pojoClass is not final
    }
    return subclasses;
  }

  private boolean isSubclass(T value) {
    return value.getClass() != pojoClass;
  }

  private T newInstance() {
    try {
      return constructor.newInstance();
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException(
          "The no-argument constructor of POJO " + pojoClass.getName() + " failed: " + e, e);
    }
  }

  @Override
  public T copy(T from) {
    if (from == null) {
      return null;
    }
    if (tagged && isSubclass(from)) {
      return subclasses().copy(from);
    }
    checkWritable();
    T copy = newInstance();
    try {
      for (int i = 0; i < fields.length; i++) {
        fields[i].set(
            copy, CompositeSerializers.copyNullable(fields[i].get(from), fieldSerializers[i]));
      }
    } catch (IllegalAccessException e) {
      throw new IllegalStateException("Copying a " + pojoClass.getName() + " failed", e);
    }
    return copy;
  }

  @Override
  public void serialize(T value, DataOutputView target) throws IOException {
    checkWritable();
    if (tagged) {
      if (value == null) {
        target.writeByte(NULL);
        return;
      } else if (isSubclass(value)) {
        target.writeByte(SUBCLASS);
        subclasses().serialize(value, target);
        return;
      }
      target.writeByte(EXACT);
    }
    try {
      for (int i = 0; i < fields.length; i++) {
        Object field = fields[i].get(value);
        if (nullable[i]) {
          CompositeSerializers.writeNullable(field, fieldSerializers[i], target);
        } else {
          fieldSerializers[i].serialize(field, target);
        }
      }
    } catch (IllegalAccessException e) {
      throw new IOException("Reading the fields of a " + pojoClass.getName() + " failed", e);
    }
  }

  @Override
  public T deserialize(DataInputView source) throws IOException {
    if (tagged) {
      byte tag = source.readByte();
      if (tag == NULL) {
        return null;
      } else if (tag == SUBCLASS) {
        return subclasses().deserialize(source);
      } else if (tag != EXACT) {
        throw new IOException("Corrupt data of POJO " + pojoClass.getName() + ": tag " + tag);
      }
    }
    T value = newInstance();
    try {
      for (int i = 0; i < fieldSerializers.length; i++) {
        Object field =
            nullable[i]
                ? CompositeSerializers.readNullable(fieldSerializers[i], source)
                : fieldSerializers[i].deserialize(source);
        if (fields[i] != null && (field != null || !fields[i].getType().isPrimitive())) {
          fields[i].set(value, field);
        }
      }
    } catch (IllegalAccessException e) {
      throw new IOException("Setting the fields of a " + pojoClass.getName() + " failed", e);
    }
    return value;
  }

  @Override
  public void copy(DataInputView source, DataOutputView target) throws IOException {
    if (tagged) {
      byte tag = source.readByte();
      target.writeByte(tag);
      if (tag == NULL) {
        return;
      } else if (tag == SUBCLASS) {
        subclasses().copy(source, target);
        return;
      }
    }
    for (int i = 0; i < fieldSerializers.length; i++) {
      if (nullable[i]) {
        CompositeSerializers.copyNullable(fieldSerializers[i], source, target);
      } else {
        fieldSerializers[i].copy(source, target);
      }
    }
  }

  private void checkWritable() {
    if (!sameLayout) {
      throw new IllegalStateException(
          "This serializer reads state written before POJO "
              + pojoClass.getName()
              + " changed its fields; it cannot write");
    }
  }

  @Override
  public TypeSerializerSnapshot<T> snapshotConfiguration() {
    return new Snapshot<>(this);
  }

  @Override
  public boolean equals(Object obj) {
    return obj instanceof PojoSerializer<?> that
        && pojoClass == that.pojoClass
        && tagged == that.tagged
        && Arrays.equals(fieldNames, that.fieldNames)
        && Arrays.equals(nullable, that.nullable)
        && Arrays.equals(fieldSerializers, that.fieldSerializers);
  }

  @Override
  public int hashCode() {
    return 31 * pojoClass.hashCode() + Arrays.hashCode(fieldSerializers);
  }

  @Override
  public String toString() {
    StringBuilder s = new StringBuilder("Pojo<").append(pojoClass.getSimpleName()).append(">(");
    for (int i = 0; i < fieldNames.length; i++) {
      s.append(i == 0 ? "" : ", ").append(fieldNames[i]).append(": ").append(fieldSerializers[i]);
    }
    return s.append(')').toString();
  }

  /**
   * The class, the written field names and nullability, and the field snapshots; from version 2
   * whether values are tagged (version 1 knew no tags).
   */
  static final class Snapshot<T> extends NamedFieldsSnapshot<T> {
    private static final int VERSION = 2;

    private boolean tagged;

    public Snapshot() {}

    Snapshot(PojoSerializer<T> serializer) {
      super(
          serializer.pojoClass,
          serializer.fieldNames,
          serializer.nullable,
          serializer.fieldSerializers);
      this.tagged = serializer.tagged;
    }

    @Override
    public int getCurrentVersion() {
      return VERSION;
    }

    @Override
    protected void writeExtra(DataOutputView out) throws IOException {
      out.writeBoolean(tagged);
    }

    @Override
    protected void readExtra(int readVersion, DataInputView in) throws IOException {
      tagged = readVersion >= 2 && in.readBoolean();
    }

    @Override
    protected String what() {
      return "POJO serializer";
    }

    @Override
    public TypeSerializer<T> restoreSerializer() {
      return new PojoSerializer<>(
          type, fieldNames, nullable, CompositeSerializers.restoreAll(nested), tagged);
    }

    @Override
    public TypeSerializerSchemaCompatibility<T> resolveSchemaCompatibility(
        TypeSerializer<T> newSerializer) {
      if (newSerializer instanceof KryoSerializer<T> kryo && kryo.type() == type) {
        // Back to Kryo (Types.GENERIC): read as the POJO, write with Kryo.
        return TypeSerializerSchemaCompatibility.compatibleAfterMigration();
      }
      if (!(newSerializer instanceof PojoSerializer<T> now) || now.pojoClass != type) {
        return TypeSerializerSchemaCompatibility.incompatible(
            "The state was POJO " + type.getName() + " but is now read with " + newSerializer);
      }
      TypeSerializerSchemaCompatibility<T> fields =
          CompositeSerializers.resolveByName(
              "POJO " + type.getName() + ", field",
              fieldNames,
              nullable,
              nested,
              now.fieldNames,
              now.nullable,
              now.fieldSerializers);
      return fields.isCompatibleAsIs() && tagged != now.tagged
          ? TypeSerializerSchemaCompatibility.compatibleAfterMigration()
          : fields;
    }
  }
}
