package io.weir.api.typeutils;

import io.weir.api.tuple.Tuple;
import java.lang.reflect.Modifier;
import java.lang.reflect.Type;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.List;
import java.util.Map;

/**
 * Type information for common types, named as in Flink's {@code Types}: pass them to {@code
 * .returns(...)} or to state descriptors when Java erased a type.
 *
 * <pre>{@code
 * stream.map(line -> Tuple2.of(line, 1L)).returns(Types.TUPLE(Types.STRING, Types.LONG));
 * }</pre>
 */
public final class Types {

  public static final TypeInformation<Void> VOID = TypeInfos.of(Void.class);
  public static final TypeInformation<String> STRING = TypeInfos.of(String.class);
  public static final TypeInformation<Byte> BYTE = TypeInfos.of(Byte.class);
  public static final TypeInformation<Boolean> BOOLEAN = TypeInfos.of(Boolean.class);
  public static final TypeInformation<Short> SHORT = TypeInfos.of(Short.class);
  public static final TypeInformation<Integer> INT = TypeInfos.of(Integer.class);
  public static final TypeInformation<Long> LONG = TypeInfos.of(Long.class);
  public static final TypeInformation<Float> FLOAT = TypeInfos.of(Float.class);
  public static final TypeInformation<Double> DOUBLE = TypeInfos.of(Double.class);
  public static final TypeInformation<Character> CHAR = TypeInfos.of(Character.class);
  public static final TypeInformation<BigInteger> BIG_INT = TypeInfos.of(BigInteger.class);
  public static final TypeInformation<BigDecimal> BIG_DEC = TypeInfos.of(BigDecimal.class);

  private Types() {}

  /**
   * An array of a primitive type: {@code PRIMITIVE_ARRAY(Types.BYTE)} is {@code byte[]}.
   *
   * @param elementType one of BYTE, SHORT, INT, LONG, FLOAT, DOUBLE, CHAR, BOOLEAN
   */
  public static TypeInformation<?> PRIMITIVE_ARRAY(TypeInformation<?> elementType) {
    Class<?> element = elementType.getTypeClass();
    Class<?> array;
    if (element == Byte.class) {
      array = byte[].class;
    } else if (element == Short.class) {
      array = short[].class;
    } else if (element == Integer.class) {
      array = int[].class;
    } else if (element == Long.class) {
      array = long[].class;
    } else if (element == Float.class) {
      array = float[].class;
    } else if (element == Double.class) {
      array = double[].class;
    } else if (element == Character.class) {
      array = char[].class;
    } else if (element == Boolean.class) {
      array = boolean[].class;
    } else {
      throw new IllegalArgumentException(
          elementType + " is not a primitive type; use Types.OBJECT_ARRAY(" + elementType + ")");
    }
    return TypeInfos.of(array);
  }

  /** An array of objects, such as {@code String[]}; elements may be null. */
  @SuppressWarnings("unchecked")
  public static <E> TypeInformation<E[]> OBJECT_ARRAY(TypeInformation<E> elementType) {
    Type arrayType = GenericTypes.arrayOf(elementType.getType());
    return (TypeInformation<E[]>)
        TypeInfos.withSerializer(
            arrayType,
            new ObjectArraySerializer<>(
                elementType.getTypeClass(), elementType.createSerializer()));
  }

  /**
   * A tuple of the given field types: {@code TUPLE(Types.STRING, Types.LONG)} is {@code
   * Tuple2<String, Long>}. Fields may be null.
   */
  @SuppressWarnings("unchecked")
  public static <T extends Tuple> TypeInformation<T> TUPLE(TypeInformation<?>... fieldTypes) {
    Class<? extends Tuple> tupleClass = Tuple.getTupleClass(fieldTypes.length);
    Type[] fields = new Type[fieldTypes.length];
    TypeSerializer<?>[] serializers = new TypeSerializer<?>[fieldTypes.length];
    for (int i = 0; i < fieldTypes.length; i++) {
      fields[i] = fieldTypes[i].getType();
      serializers[i] = fieldTypes[i].createSerializer();
    }
    return TypeInfos.withSerializer(
        GenericTypes.parameterized(tupleClass, fields), new TupleSerializer<>(serializers));
  }

  /** A {@code java.util.List}, read back as an {@code ArrayList}; elements may be null. */
  public static <E> TypeInformation<List<E>> LIST(TypeInformation<E> elementType) {
    return TypeInfos.withSerializer(
        GenericTypes.parameterized(List.class, elementType.getType()),
        new ListSerializer<>(elementType.createSerializer()));
  }

  /** A {@code java.util.Map}, read back as a {@code HashMap}; keys and values may be null. */
  public static <K, V> TypeInformation<Map<K, V>> MAP(
      TypeInformation<K> keyType, TypeInformation<V> valueType) {
    return TypeInfos.withSerializer(
        GenericTypes.parameterized(Map.class, keyType.getType(), valueType.getType()),
        new MapSerializer<>(keyType.createSerializer(), valueType.createSerializer()));
  }

  /**
   * A Java record, serialized component by component with serializers chosen from the component
   * types. Prefer records for stream elements and state: they are compact and fast.
   */
  public static <T extends Record> TypeInformation<T> RECORD(Class<T> recordClass) {
    if (!recordClass.isRecord()) {
      throw new IllegalArgumentException(recordClass.getName() + " is not a record");
    }
    return TypeInfos.of(recordClass);
  }

  /** An enum, serialized as its ordinal. */
  public static <E extends Enum<E>> TypeInformation<E> ENUM(Class<E> enumClass) {
    return TypeInfos.of(enumClass);
  }

  /**
   * A plain Java object with a no-argument constructor, serialized field by field (every
   * non-static, non-transient field, by name), with serializers chosen from the field types. Its
   * state can evolve: fields may be added (they keep the constructor's value) or removed.
   *
   * <p>Not needed for a class that follows Flink's POJO rules (public, a public no-argument
   * constructor, every field public or with a getter and a setter): {@link
   * TypeInformation#of(Class)}, type hints and function signatures infer it as this same POJO type.
   * {@code POJO} also accepts classes that break those rules, such as one with private fields
   * without setters, which would otherwise go to Kryo.
   */
  public static <T> TypeInformation<T> POJO(Class<T> pojoClass) {
    if (pojoClass.isInterface()
        || Modifier.isAbstract(pojoClass.getModifiers())
        || pojoClass.isPrimitive()
        || pojoClass.isArray()) {
      throw new InvalidTypesException(
          pojoClass.getName() + " is not a POJO: it must be a concrete class");
    }
    try {
      var unused = pojoClass.getDeclaredConstructor();
    } catch (NoSuchMethodException e) {
      throw new InvalidTypesException(
          pojoClass.getName() + " is not a POJO: it has no constructor without arguments", e);
    }
    return TypeInfos.withSerializer(pojoClass, SerializerFactory.pojo(pojoClass));
  }

  /**
   * Any class, serialized with Kryo even when Weir has a built-in serializer for it. The slowest
   * choice; values of subclasses keep their class.
   */
  public static <T> TypeInformation<T> GENERIC(Class<T> genericClass) {
    if (genericClass.isPrimitive()) {
      throw new IllegalArgumentException(
          genericClass + " is primitive; use its constant, such as Types.LONG");
    }
    return TypeInfos.withSerializer(genericClass, new KryoSerializer<>(genericClass));
  }
}
