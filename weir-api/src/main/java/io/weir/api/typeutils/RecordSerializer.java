package io.weir.api.typeutils;

import java.io.IOException;
import java.lang.invoke.CallSite;
import java.lang.invoke.LambdaMetafactory;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Constructor;
import java.lang.reflect.Method;
import java.lang.reflect.RecordComponent;
import java.util.Arrays;
import java.util.function.Function;
import java.util.function.ToIntFunction;
import java.util.function.ToLongFunction;

/**
 * Java records, component by component in declaration order; components of non-primitive type are
 * written behind a null marker. Reads call the canonical constructor, so its validation runs.
 *
 * <p>A serializer restored from a snapshot reads the components as they were written (by name), so
 * a record that gained, lost or reordered components can still be restored: lost components are
 * dropped and new ones get {@code null}, {@code 0} or {@code false}. Such a serializer only reads.
 */
final class RecordSerializer<T extends Record> extends TypeSerializer<T> {

  private final Class<T> recordClass;

  // The written layout, one entry per serialized field.
  private final String[] fieldNames;
  private final boolean[] nullable;
  private final TypeSerializer<Object>[] fieldSerializers;

  // How the layout maps onto the record class as it is now.
  private final MethodHandle[] getters; // per field, (Object) -> Object; null if the record lost it
  private final int[] argumentIndex; // per field, constructor argument index or -1
  private final Object[] defaultArguments; // for components the data has no value for
  private final boolean sameLayout;
  private final MethodHandle constructor; // (Object[]) -> Object

  // (DataInputView) -> Object when the layout is the class's: reads the components and calls the
  // canonical constructor, without an argument array; null otherwise.
  private final MethodHandle reader;

  // Per field, the component written through an accessor class defined next to the record; null
  // when Weir may not define one there (a record in a module not open to Weir, or loaded by
  // another class loader than Weir's), and then serialize reads through the getters.
  private final ComponentWriter[] writers;

  /** Writes one component of a record as its field serializer does. */
  private interface ComponentWriter {
    void write(Object record, DataOutputView target) throws IOException;
  }

  /** A serializer for the record class as it is now; one serializer per component, in order. */
  RecordSerializer(Class<T> recordClass, TypeSerializer<?>[] componentSerializers) {
    this(
        recordClass, currentNames(recordClass), currentNullable(recordClass), componentSerializers);
  }

  /** A serializer for data written with the given layout. */
  @SuppressWarnings("unchecked")
  RecordSerializer(
      Class<T> recordClass,
      String[] fieldNames,
      boolean[] nullable,
      TypeSerializer<?>[] fieldSerializers) {
    if (fieldNames.length != nullable.length || fieldNames.length != fieldSerializers.length) {
      throw new IllegalArgumentException("One name, nullability and serializer per field");
    }
    this.recordClass = recordClass;
    this.fieldNames = fieldNames.clone();
    this.nullable = nullable.clone();
    this.fieldSerializers = (TypeSerializer<Object>[]) fieldSerializers.clone();

    RecordComponent[] components = recordClass.getRecordComponents();
    MethodHandles.Lookup lookup = MethodHandles.lookup();
    this.getters = new MethodHandle[fieldNames.length];
    this.argumentIndex = new int[fieldNames.length];
    this.defaultArguments = new Object[components.length];
    for (int c = 0; c < components.length; c++) {
      defaultArguments[c] = defaultValue(components[c].getType());
    }
    for (int i = 0; i < fieldNames.length; i++) {
      argumentIndex[i] = -1;
      for (int c = 0; c < components.length; c++) {
        if (components[c].getName().equals(fieldNames[i])) {
          argumentIndex[i] = c;
          getters[i] = getter(lookup, components[c]);
        }
      }
    }
    this.sameLayout =
        Arrays.equals(this.fieldNames, currentNames(recordClass))
            && Arrays.equals(this.nullable, currentNullable(recordClass));
    MethodHandle canonical = canonicalConstructor(lookup, recordClass, components);
    this.constructor =
        canonical
            .asType(MethodType.genericMethodType(components.length))
            .asSpreader(Object[].class, components.length);
    this.reader = sameLayout ? reader(canonical, this.fieldSerializers, this.nullable) : null;
    this.writers = sameLayout ? writers(recordClass) : null;
  }

  private static final MethodHandle READ_LONG;
  private static final MethodHandle READ_INT;
  private static final MethodHandle READ_NULLABLE;
  private static final MethodHandle DESERIALIZE;

  static {
    try {
      MethodHandles.Lookup lookup = MethodHandles.lookup();
      READ_LONG =
          lookup.findVirtual(DataInputView.class, "readLong", MethodType.methodType(long.class));
      READ_INT =
          lookup.findVirtual(DataInputView.class, "readInt", MethodType.methodType(int.class));
      READ_NULLABLE =
          lookup.findStatic(
              CompositeSerializers.class,
              "readNullable",
              MethodType.methodType(Object.class, TypeSerializer.class, DataInputView.class));
      DESERIALIZE =
          lookup.findVirtual(
              TypeSerializer.class,
              "deserialize",
              MethodType.methodType(Object.class, DataInputView.class));
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  /**
   * One method handle that reads every component in order and passes it to the canonical
   * constructor: {@code constructor(read0(in), read1(in), ...)}, folded from the last component to
   * the first so that they are read first to last. Profiles of Nexmark's keyed window task showed
   * the argument array, the spreading constructor handle and the boxing of {@code long}s (11-14 %
   * of the task); here a {@code long} or {@code int} component with the plain serializer goes from
   * {@code readLong}/{@code readInt} to the constructor unboxed, and the JIT compiles the whole
   * tree as one form.
   */
  private static MethodHandle reader(
      MethodHandle canonical, TypeSerializer<Object>[] serializers, boolean[] nullable) {
    int n = serializers.length;
    MethodType type = canonical.type();
    MethodHandle reader =
        MethodHandles.dropArguments(
            canonical.asType(type.changeReturnType(Object.class)), n, DataInputView.class);
    for (int i = n - 1; i >= 0; i--) {
      Object serializer = serializers[i];
      MethodHandle read;
      if (!nullable[i] && serializer == BasicSerializers.LongSerializer.INSTANCE) {
        read = READ_LONG;
      } else if (!nullable[i] && serializer == BasicSerializers.IntSerializer.INSTANCE) {
        read = READ_INT;
      } else if (nullable[i]) {
        read = MethodHandles.insertArguments(READ_NULLABLE, 0, serializer);
      } else {
        read = DESERIALIZE.bindTo(serializer);
      }
      read = read.asType(MethodType.methodType(type.parameterType(i), DataInputView.class));
      reader = MethodHandles.foldArguments(reader, i, read);
    }
    return reader;
  }

  /**
   * Writers of the components through {@link LambdaMetafactory} accessors: a getter method handle
   * held in a field is not a constant the JIT can inline, so each call of it went through the
   * method handle's interpreter frames and boxed primitives (profiles of Nexmark's sources showed
   * it); a {@code long} or {@code int} component with its plain serializer is written without
   * boxing. Null when no accessor could be defined; the bytes are the same either way.
   */
  @SuppressWarnings("unchecked")
  private ComponentWriter[] writers(Class<T> recordClass) {
    Object[] accessors = ACCESSORS.get(recordClass);
    if (accessors == null) {
      return null;
    }
    ComponentWriter[] result = new ComponentWriter[accessors.length];
    for (int i = 0; i < accessors.length; i++) {
      TypeSerializer<Object> serializer = fieldSerializers[i];
      Object accessor = accessors[i];
      if (accessor instanceof ToLongFunction<?> f
          && (Object) serializer == BasicSerializers.LongSerializer.INSTANCE) {
        ToLongFunction<Object> get = (ToLongFunction<Object>) f;
        result[i] = (record, target) -> target.writeLong(get.applyAsLong(record));
      } else if (accessor instanceof ToIntFunction<?> f
          && (Object) serializer == BasicSerializers.IntSerializer.INSTANCE) {
        ToIntFunction<Object> get = (ToIntFunction<Object>) f;
        result[i] = (record, target) -> target.writeInt(get.applyAsInt(record));
      } else if (accessor instanceof Function<?, ?> f) {
        Function<Object, Object> get = (Function<Object, Object>) f;
        result[i] =
            nullable[i]
                ? (record, target) ->
                    CompositeSerializers.writeNullable(get.apply(record), serializer, target)
                : (record, target) -> serializer.serialize(get.apply(record), target);
      } else {
        return null; // a primitive component with a serializer of its own: the getters do it
      }
    }
    return result;
  }

  /**
   * Per record class, one accessor per component: a {@link ToLongFunction} for {@code long}, a
   * {@link ToIntFunction} for {@code int}, a {@link Function} otherwise; null when Weir may not
   * define a class next to the record (a module not open to it, another class loader's unnamed
   * module). Defined once per class, not per serializer.
   */
  private static final ClassValue<Object[]> ACCESSORS =
      new ClassValue<>() {
        @Override
        protected Object[] computeValue(Class<?> recordClass) {
          try {
            MethodHandles.Lookup owner =
                MethodHandles.privateLookupIn(recordClass, MethodHandles.lookup());
            RecordComponent[] components = recordClass.getRecordComponents();
            Object[] result = new Object[components.length];
            for (int i = 0; i < components.length; i++) {
              MethodHandle getter = owner.unreflect(components[i].getAccessor());
              Class<?> type = components[i].getType();
              result[i] =
                  type == long.class
                      ? accessor(owner, getter, ToLongFunction.class, "applyAsLong", long.class)
                      : type == int.class
                          ? accessor(owner, getter, ToIntFunction.class, "applyAsInt", int.class)
                          : accessor(owner, getter, Function.class, "apply", Object.class);
            }
            return result;
          } catch (Throwable e) {
            return null;
          }
        }
      };

  /** An instance of {@code functional} whose one method, {@code (Object) erased}, is getter. */
  private static Object accessor(
      MethodHandles.Lookup owner,
      MethodHandle getter,
      Class<?> functional,
      String method,
      Class<?> erased)
      throws Throwable {
    Class<?> returned = getter.type().returnType();
    Class<?> instantiated =
        erased == Object.class ? MethodType.methodType(returned).wrap().returnType() : returned;
    CallSite site =
        LambdaMetafactory.metafactory(
            owner,
            method,
            MethodType.methodType(functional),
            MethodType.methodType(erased, Object.class),
            getter,
            MethodType.methodType(instantiated, getter.type().parameterType(0)));
    return site.getTarget().invoke();
  }

  private static String[] currentNames(Class<?> recordClass) {
    return Arrays.stream(recordClass.getRecordComponents())
        .map(RecordComponent::getName)
        .toArray(String[]::new);
  }

  private static boolean[] currentNullable(Class<?> recordClass) {
    RecordComponent[] components = recordClass.getRecordComponents();
    boolean[] nullable = new boolean[components.length];
    for (int i = 0; i < components.length; i++) {
      nullable[i] = !components[i].getType().isPrimitive();
    }
    return nullable;
  }

  private static Object defaultValue(Class<?> type) {
    if (!type.isPrimitive()) {
      return null;
    }
    try {
      return MethodHandles.zero(type).invoke();
    } catch (Throwable e) {
      throw new IllegalStateException("No zero value for " + type, e);
    }
  }

  private static MethodHandle getter(MethodHandles.Lookup lookup, RecordComponent component) {
    Method accessor = component.getAccessor();
    try {
      trySetAccessible(accessor);
      return lookup.unreflect(accessor).asType(MethodType.methodType(Object.class, Object.class));
    } catch (IllegalAccessException e) {
      throw new InvalidTypesException(
          "Weir cannot read component '"
              + component.getName()
              + "' of record "
              + component.getDeclaringRecord().getName()
              + ": "
              + e.getMessage()
              + ". Make the record public or open its package to Weir",
          e);
    }
  }

  private static MethodHandle canonicalConstructor(
      MethodHandles.Lookup lookup, Class<?> recordClass, RecordComponent[] components) {
    Class<?>[] types =
        Arrays.stream(components).map(RecordComponent::getType).toArray(Class<?>[]::new);
    try {
      Constructor<?> canonical = recordClass.getDeclaredConstructor(types);
      trySetAccessible(canonical);
      return lookup.unreflectConstructor(canonical);
    } catch (NoSuchMethodException | IllegalAccessException e) {
      throw new InvalidTypesException(
          "Weir cannot call the canonical constructor of record "
              + recordClass.getName()
              + ": "
              + e.getMessage()
              + ". Make the record public or open its package to Weir",
          e);
    }
  }

  private static void trySetAccessible(java.lang.reflect.AccessibleObject member) {
    try {
      member.setAccessible(true);
    } catch (RuntimeException e) {
      // A record in a module that is not open to Weir: unreflect then works for public ones only.
    }
  }

  Class<T> recordClass() {
    return recordClass;
  }

  @Override
  public boolean isImmutableType() {
    return sameLayout && CompositeSerializers.allImmutable(fieldSerializers);
  }

  @Override
  public TypeSerializer<T> duplicate() {
    TypeSerializer<?>[] duplicates = CompositeSerializers.duplicateAll(fieldSerializers);
    return duplicates == fieldSerializers
        ? this
        : new RecordSerializer<>(recordClass, fieldNames, nullable, duplicates);
  }

  @Override
  public T copy(T from) {
    if (isImmutableType()) {
      return from;
    }
    checkWritable();
    Object[] arguments = new Object[fieldSerializers.length];
    for (int i = 0; i < arguments.length; i++) {
      arguments[i] = CompositeSerializers.copyNullable(get(i, from), fieldSerializers[i]);
    }
    return construct(arguments);
  }

  @Override
  public void serialize(T record, DataOutputView target) throws IOException {
    checkWritable();
    ComponentWriter[] fast = writers;
    if (fast != null) {
      for (ComponentWriter writer : fast) {
        writer.write(record, target);
      }
      return;
    }
    for (int i = 0; i < fieldSerializers.length; i++) {
      Object value = get(i, record);
      if (nullable[i]) {
        CompositeSerializers.writeNullable(value, fieldSerializers[i], target);
      } else {
        fieldSerializers[i].serialize(value, target);
      }
    }
  }

  @Override
  @SuppressWarnings("unchecked")
  public T deserialize(DataInputView source) throws IOException {
    MethodHandle fast = reader;
    if (fast != null) {
      try {
        return (T) (Object) fast.invokeExact(source);
      } catch (IOException | RuntimeException | Error e) {
        throw e;
      } catch (Throwable e) {
        throw new IllegalStateException(
            "The constructor of record " + recordClass.getName() + " failed", e);
      }
    }
    Object[] arguments =
        sameLayout ? new Object[fieldSerializers.length] : defaultArguments.clone();
    for (int i = 0; i < fieldSerializers.length; i++) {
      Object value =
          nullable[i]
              ? CompositeSerializers.readNullable(fieldSerializers[i], source)
              : fieldSerializers[i].deserialize(source);
      int index = argumentIndex[i];
      if (index >= 0 && value != null) {
        arguments[index] = value;
      }
    }
    return construct(arguments);
  }

  @Override
  public void copy(DataInputView source, DataOutputView target) throws IOException {
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
          "This serializer reads state written before record "
              + recordClass.getName()
              + " changed its components; it cannot write");
    }
  }

  private Object get(int field, T record) {
    try {
      return (Object) getters[field].invokeExact((Object) record);
    } catch (RuntimeException | Error e) {
      throw e;
    } catch (Throwable e) {
      throw new IllegalStateException("Reading " + fieldNames[field] + " of " + record, e);
    }
  }

  @SuppressWarnings("unchecked")
  private T construct(Object[] arguments) {
    try {
      return (T) (Object) constructor.invokeExact(arguments);
    } catch (RuntimeException | Error e) {
      throw e;
    } catch (Throwable e) {
      throw new IllegalStateException(
          "The constructor of record " + recordClass.getName() + " failed", e);
    }
  }

  @Override
  public TypeSerializerSnapshot<T> snapshotConfiguration() {
    return new Snapshot<>(this);
  }

  @Override
  public boolean equals(Object obj) {
    return obj instanceof RecordSerializer<?> that
        && recordClass == that.recordClass
        && Arrays.equals(fieldNames, that.fieldNames)
        && Arrays.equals(nullable, that.nullable)
        && Arrays.equals(fieldSerializers, that.fieldSerializers);
  }

  @Override
  public int hashCode() {
    return 31 * recordClass.hashCode() + Arrays.hashCode(fieldSerializers);
  }

  @Override
  public String toString() {
    StringBuilder s = new StringBuilder(recordClass.getSimpleName()).append('(');
    for (int i = 0; i < fieldNames.length; i++) {
      s.append(i == 0 ? "" : ", ").append(fieldNames[i]).append(": ").append(fieldSerializers[i]);
    }
    return s.append(')').toString();
  }

  /** The record class, the written field names and nullability, and the field snapshots. */
  static final class Snapshot<T extends Record> extends NamedFieldsSnapshot<T> {

    public Snapshot() {}

    Snapshot(RecordSerializer<T> serializer) {
      super(
          serializer.recordClass,
          serializer.fieldNames,
          serializer.nullable,
          serializer.fieldSerializers);
    }

    @Override
    protected String what() {
      return "record serializer";
    }

    @Override
    protected void checkType(Class<?> loaded) throws IOException {
      if (!loaded.isRecord()) {
        throw new IOException(
            "The state's record class " + loaded.getName() + " is no longer a record");
      }
    }

    @Override
    public TypeSerializer<T> restoreSerializer() {
      return new RecordSerializer<>(
          type, fieldNames, nullable, CompositeSerializers.restoreAll(nested));
    }

    @Override
    @SuppressWarnings("unchecked")
    public TypeSerializerSchemaCompatibility<T> resolveSchemaCompatibility(
        TypeSerializer<T> newSerializer) {
      if (!(newSerializer instanceof RecordSerializer<T> now) || now.recordClass != type) {
        return TypeSerializerSchemaCompatibility.incompatible(
            "The state was record " + type.getName() + " but is now read with " + newSerializer);
      }
      return CompositeSerializers.resolveByName(
          "Record " + type.getName() + ", component",
          fieldNames,
          nullable,
          nested,
          now.fieldNames,
          now.nullable,
          now.fieldSerializers);
    }
  }
}
