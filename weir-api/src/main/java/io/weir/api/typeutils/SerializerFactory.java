package io.weir.api.typeutils;

import io.weir.api.tuple.Tuple;
import java.lang.reflect.Field;
import java.lang.reflect.GenericArrayType;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.lang.reflect.TypeVariable;
import java.lang.reflect.WildcardType;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Chooses the serializer for a reflective type: built-ins for primitives, strings, arrays, enums,
 * lists, maps, tuples, records and POJOs by Flink's rules ({@link PojoRules}), recursively from
 * their generic type arguments, and Kryo for everything else. Type variables left in a type stand
 * for their bound.
 */
final class SerializerFactory {

  private static final Logger LOG = LoggerFactory.getLogger(SerializerFactory.class);

  /**
   * Whether a class's fall back to Kryo was logged, so that it is logged once per class; kept with
   * the class, so that a job's classes stay free to be unloaded.
   */
  private static final ClassValue<AtomicBoolean> LOGGED =
      new ClassValue<>() {
        @Override
        protected AtomicBoolean computeValue(Class<?> type) {
          return new AtomicBoolean();
        }
      };

  /** Records and POJOs whose serializer is being built, to stop at one that contains itself. */
  private final Set<Class<?>> inProgress = new HashSet<>();

  private SerializerFactory() {}

  static TypeSerializer<?> create(Type type) {
    return new SerializerFactory().build(type, null);
  }

  /** The serializer for a class with no configuration, or null. */
  static StatelessSerializer<?> basic(Class<?> c) {
    if (c == Long.class || c == long.class) {
      return BasicSerializers.LongSerializer.INSTANCE;
    } else if (c == String.class) {
      return StringSerializer.INSTANCE;
    } else if (c == Integer.class || c == int.class) {
      return BasicSerializers.IntSerializer.INSTANCE;
    } else if (c == Double.class || c == double.class) {
      return BasicSerializers.DoubleSerializer.INSTANCE;
    } else if (c == Boolean.class || c == boolean.class) {
      return BasicSerializers.BooleanSerializer.INSTANCE;
    } else if (c == Float.class || c == float.class) {
      return BasicSerializers.FloatSerializer.INSTANCE;
    } else if (c == Short.class || c == short.class) {
      return BasicSerializers.ShortSerializer.INSTANCE;
    } else if (c == Byte.class || c == byte.class) {
      return BasicSerializers.ByteSerializer.INSTANCE;
    } else if (c == Character.class || c == char.class) {
      return BasicSerializers.CharSerializer.INSTANCE;
    } else if (c == Void.class || c == void.class) {
      return BasicSerializers.VoidSerializer.INSTANCE;
    } else if (c == BigInteger.class) {
      return BasicSerializers.BigIntegerSerializer.INSTANCE;
    } else if (c == BigDecimal.class) {
      return BasicSerializers.BigDecimalSerializer.INSTANCE;
    } else if (c == byte[].class) {
      return PrimitiveArraySerializers.ByteArraySerializer.INSTANCE;
    } else if (c == long[].class) {
      return PrimitiveArraySerializers.LongArraySerializer.INSTANCE;
    } else if (c == int[].class) {
      return PrimitiveArraySerializers.IntArraySerializer.INSTANCE;
    } else if (c == double[].class) {
      return PrimitiveArraySerializers.DoubleArraySerializer.INSTANCE;
    } else if (c == float[].class) {
      return PrimitiveArraySerializers.FloatArraySerializer.INSTANCE;
    } else if (c == short[].class) {
      return PrimitiveArraySerializers.ShortArraySerializer.INSTANCE;
    } else if (c == char[].class) {
      return PrimitiveArraySerializers.CharArraySerializer.INSTANCE;
    } else if (c == boolean[].class) {
      return PrimitiveArraySerializers.BooleanArraySerializer.INSTANCE;
    }
    return null;
  }

  /**
   * @param where what holds this type, for error messages; null at the top
   */
  @SuppressWarnings({"unchecked", "rawtypes"})
  private TypeSerializer<?> build(Type type, String where) {
    if (type instanceof WildcardType w) {
      return build(w.getUpperBounds()[0], where);
    } else if (type instanceof TypeVariable<?> v) {
      return build(GenericTypes.rawClass(v), where);
    } else if (type instanceof GenericArrayType g) {
      Type component = g.getGenericComponentType();
      return new ObjectArraySerializer(
          GenericTypes.rawClass(component), build(component, inside(type, where)));
    }
    Class<?> raw = GenericTypes.rawClass(type);
    Type[] args =
        type instanceof ParameterizedType p ? p.getActualTypeArguments() : raw.getTypeParameters();

    TypeSerializer<?> basic = basic(raw);
    if (basic != null) {
      return basic;
    } else if (raw.isArray()) {
      Class<?> component = raw.getComponentType();
      return new ObjectArraySerializer(component, build(component, inside(type, where)));
    } else if (raw.isEnum()) {
      return new EnumSerializer(raw);
    } else if (raw.getSuperclass() != null && raw.getSuperclass().isEnum()) {
      return new EnumSerializer(raw.getSuperclass()); // a constant with a body
    } else if (raw == List.class || raw == ArrayList.class) {
      return new ListSerializer<>(build(args[0], inside(type, where)));
    } else if (raw == Map.class || raw == HashMap.class) {
      return new MapSerializer<>(
          build(args[0], inside(type, where)), build(args[1], inside(type, where)));
    } else if (raw == Tuple.class
        || (Tuple.class.isAssignableFrom(raw) && raw.getSuperclass() == Tuple.class)) {
      return tuple(type, raw, where);
    } else if (raw.isRecord()) {
      return record(type, raw);
    }
    if (inProgress.contains(raw)) {
      // A POJO that contains itself (a linked list, a tree): Kryo follows such graphs, as Flink
      // falls back to a GenericType for the recursive field.
      return new KryoSerializer<>(raw);
    }
    String whyNot = PojoRules.whyNotPojo(raw);
    if (whyNot == null) {
      return pojo(type, raw);
    }
    if (!raw.getName().startsWith("java.") && LOGGED.get(raw).compareAndSet(false, true)) {
      LOG.info(
          "Class {} cannot be used as a POJO type because {}; it is serialized with Kryo as a"
              + " GenericType, which is slower and whose state cannot evolve"
              + " (see docs/schema-evolution.md)",
          raw.getName(),
          whyNot);
    }
    return new KryoSerializer<>(raw);
  }

  /**
   * A POJO serializer for {@code pojoClass} as it is now, whatever Flink's rules say of it: {@code
   * Types.POJO} accepts any concrete class with a no-argument constructor.
   */
  static <T> PojoSerializer<T> pojo(Class<T> pojoClass) {
    return new SerializerFactory().pojo(pojoClass, pojoClass);
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  private PojoSerializer pojo(Type type, Class<?> raw) {
    inProgress.add(raw); // build() checked that it was not already in progress
    try {
      List<Field> fields = PojoSerializer.fieldsOf(raw);
      TypeSerializer<?>[] serializers = new TypeSerializer<?>[fields.size()];
      for (int i = 0; i < serializers.length; i++) {
        Field f = fields.get(i);
        Type declaring = GenericTypes.resolveSupertype(type, f.getDeclaringClass());
        Type fieldType =
            GenericTypes.substitute(
                f.getGenericType(),
                declaring == null ? Map.of() : GenericTypes.bindingsOf(declaring));
        serializers[i] = build(fieldType, "field '" + f.getName() + "' of POJO " + raw.getName());
      }
      return new PojoSerializer(raw, serializers);
    } finally {
      inProgress.remove(raw);
    }
  }

  private TypeSerializer<?> tuple(Type type, Class<?> raw, String where) {
    if (!(type instanceof ParameterizedType p)) {
      throw new InvalidTypesException(
          raw.getSimpleName()
              + " is used without its field types"
              + (where == null ? "" : " in " + where)
              + ": Weir needs them to serialize the fields. Declare them, as in"
              + " Types.TUPLE(Types.STRING, Types.LONG) or new TypeHint<Tuple2<String, Long>>(){}");
    }
    Type[] fields = p.getActualTypeArguments();
    TypeSerializer<?>[] serializers = new TypeSerializer<?>[fields.length];
    for (int i = 0; i < fields.length; i++) {
      serializers[i] = build(fields[i], "field f" + i + " of " + GenericTypes.simpleName(type));
    }
    return new TupleSerializer<>(serializers);
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  private TypeSerializer<?> record(Type type, Class<?> raw) {
    if (!inProgress.add(raw)) {
      // The record contains itself (e.g. through a List of itself): Kryo follows such graphs.
      return new KryoSerializer<>(raw);
    }
    try {
      Map<TypeVariable<?>, Type> bindings = GenericTypes.bindingsOf(type);
      RecordComponent[] components = raw.getRecordComponents();
      TypeSerializer<?>[] serializers = new TypeSerializer<?>[components.length];
      for (int i = 0; i < components.length; i++) {
        Type componentType = GenericTypes.substitute(components[i].getGenericType(), bindings);
        serializers[i] =
            build(
                componentType,
                "component '" + components[i].getName() + "' of record " + raw.getName());
      }
      return new RecordSerializer(raw, serializers);
    } finally {
      inProgress.remove(raw);
    }
  }

  private static String inside(Type type, String where) {
    String here = GenericTypes.simpleName(type);
    return where == null ? here : here + " in " + where;
  }
}
