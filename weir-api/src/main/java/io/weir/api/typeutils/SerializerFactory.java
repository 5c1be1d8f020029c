package io.weir.api.typeutils;

import io.weir.api.tuple.Tuple;
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

/**
 * Chooses the serializer for a reflective type: built-ins for primitives, strings, arrays, enums,
 * lists, maps, tuples and records (recursively, from their generic type arguments), Kryo for
 * everything else. Type variables left in a type stand for their bound.
 */
final class SerializerFactory {

  /** Records whose serializer is being built, to stop at a record that contains itself. */
  private final Set<Class<?>> recordsInProgress = new HashSet<>();

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
    return new KryoSerializer<>(raw);
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
    if (!recordsInProgress.add(raw)) {
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
      recordsInProgress.remove(raw);
    }
  }

  private static String inside(Type type, String where) {
    String here = GenericTypes.simpleName(type);
    return where == null ? here : here + " in " + where;
  }
}
