package io.weir.api.functions.aggregation;

import io.weir.api.tuple.Tuple;
import io.weir.api.typeutils.TypeInformation;
import java.io.Serializable;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Reads one field of a stream's elements and makes a copy of an element with that field replaced:
 * the field an aggregation ({@code sum}, {@code min}, {@code max}, {@code minBy}, {@code maxBy})
 * works on. Resolved when the job is built, against the stream's type, so a bad position or name
 * fails at the call that named it. The element is never changed in place.
 *
 * <p>Supported, as in Flink: a position or {@code "f0".."f4"} of a tuple, a field name of a POJO (a
 * public field, or a field with a getter and a setter), position 0 or {@code "*"} of a basic type
 * (a number or other comparable value); and, beyond Flink, a component of a Java record by name or
 * position. Nested expressions ({@code "a.b"}) are not supported.
 */
final class FieldAccessor implements Serializable {
  private static final long serialVersionUID = 1L;

  /** How the field is reached. */
  private enum Kind {
    /** The element itself is the field: a number, a string. */
    WHOLE,
    /** A tuple's field by position. */
    TUPLE,
    /** A record component by index. */
    RECORD,
    /** A POJO's field, public or private. */
    POJO
  }

  private final String call;
  private final Kind kind;
  private final Class<?> elementClass;
  private final int position;
  private final String fieldName;
  private final Class<?> fieldClass;
  private final String getterName;
  private final String setterName;

  private transient Field field;
  private transient Method getter;
  private transient Method setter;

  private FieldAccessor(
      String call,
      Kind kind,
      Class<?> elementClass,
      int position,
      String fieldName,
      Class<?> fieldClass,
      String getterName,
      String setterName) {
    this.call = call;
    this.kind = kind;
    this.elementClass = elementClass;
    this.position = position;
    this.fieldName = fieldName;
    this.fieldClass = fieldClass;
    this.getterName = getterName;
    this.setterName = setterName;
  }

  /** The field at {@code position} of {@code type}'s elements; {@code call} names the caller. */
  static FieldAccessor at(TypeInformation<?> type, int position, String call) {
    Class<?> c = typeClass(type, call);
    if (position < 0) {
      throw new IllegalArgumentException(
          call + " on " + type + ": the field position must not be negative");
    }
    if (Tuple.class.isAssignableFrom(c)) {
      int arity = tupleArity(c, type, call);
      if (position >= arity) {
        throw new IllegalArgumentException(
            call
                + " on "
                + type
                + ": there is no field at position "
                + position
                + "; its positions are 0 to "
                + (arity - 1));
      }
      return new FieldAccessor(
          call,
          Kind.TUPLE,
          c,
          position,
          "f" + position,
          tupleFieldClass(type, position),
          null,
          null);
    }
    if (c.isRecord()) {
      RecordComponent[] components = c.getRecordComponents();
      if (position >= components.length) {
        throw new IllegalArgumentException(
            call
                + " on "
                + type
                + ": there is no field at position "
                + position
                + "; the record has "
                + components.length
                + " components, at positions 0 to "
                + (components.length - 1));
      }
      RecordComponent component = components[position];
      return new FieldAccessor(
          call, Kind.RECORD, c, position, component.getName(), component.getType(), null, null);
    }
    if (isBasic(c)) {
      if (position != 0) {
        throw new IllegalArgumentException(
            call
                + " on "
                + type
                + ": a stream of "
                + c.getSimpleName()
                + " values has only position 0 (the value itself)");
      }
      return whole(call, c);
    }
    throw new IllegalArgumentException(
        call
            + " on "
            + type
            + ": field positions select the fields of tuples and records (and position 0 of"
            + " numbers); name the field of this POJO instead, such as "
            + call.substring(0, call.indexOf('('))
            + "(\""
            + firstFieldName(c)
            + "\")");
  }

  /** The field named {@code name} of {@code type}'s elements; {@code call} names the caller. */
  static FieldAccessor named(TypeInformation<?> type, String name, String call) {
    Class<?> c = typeClass(type, call);
    Objects.requireNonNull(name, call + ": the field name");
    if (name.contains(".")) {
      throw new IllegalArgumentException(
          call
              + " on "
              + type
              + ": nested field expressions such as '"
              + name
              + "' are not supported; map the stream to the field's type first");
    }
    if ((name.equals("*") || name.equals("_")) && isBasic(c)) {
      return whole(call, c);
    }
    if (Tuple.class.isAssignableFrom(c)) {
      if (name.matches("f\\d+")) {
        return at(type, Integer.parseInt(name.substring(1)), call);
      }
      throw noSuchField(call, type, name, tupleFieldNames(tupleArity(c, type, call)));
    }
    if (c.isRecord()) {
      RecordComponent[] components = c.getRecordComponents();
      List<String> names = new ArrayList<>();
      for (int i = 0; i < components.length; i++) {
        if (components[i].getName().equals(name)) {
          return at(type, i, call);
        }
        names.add(components[i].getName());
      }
      throw noSuchField(call, type, name, names);
    }
    if (isBasic(c)) {
      throw new IllegalArgumentException(
          call
              + " on "
              + type
              + ": a stream of "
              + c.getSimpleName()
              + " values has no field '"
              + name
              + "'; use position 0 or \"*\" for the value itself");
    }
    return pojoField(type, c, name, call);
  }

  private static FieldAccessor pojoField(
      TypeInformation<?> type, Class<?> c, String name, String call) {
    try {
      Objects.requireNonNull(c.getConstructor());
    } catch (NoSuchMethodException e) {
      throw new IllegalArgumentException(
          call
              + " on "
              + type
              + ": "
              + c.getName()
              + " is neither a tuple, a record nor a POJO (a POJO needs a public constructor"
              + " without arguments); make it one, or map the stream to a tuple first");
    }
    Field f = findField(c, name);
    if (f == null) {
      throw noSuchField(call, type, name, pojoFieldNames(c));
    }
    if (Modifier.isPublic(f.getModifiers())) {
      return new FieldAccessor(call, Kind.POJO, c, -1, name, f.getType(), null, null);
    }
    String capitalized = Character.toUpperCase(name.charAt(0)) + name.substring(1);
    String getter = null;
    for (String candidate : List.of("get" + capitalized, "is" + capitalized, name)) {
      try {
        Method m = c.getMethod(candidate);
        if (m.getReturnType() == f.getType()) {
          getter = candidate;
          break;
        }
      } catch (NoSuchMethodException e) {
        // try the next form
      }
    }
    String setter = "set" + capitalized;
    boolean hasSetter;
    try {
      c.getMethod(setter, f.getType());
      hasSetter = true;
    } catch (NoSuchMethodException e) {
      hasSetter = false;
    }
    if (getter == null || !hasSetter) {
      throw new IllegalArgumentException(
          call
              + " on "
              + type
              + ": the field '"
              + name
              + "' of "
              + c.getName()
              + " is not public and has no public getter and setter ("
              + (getter == null ? "get" + capitalized + "()" : setter + "(...)")
              + " is missing); make the field public or add them");
    }
    return new FieldAccessor(call, Kind.POJO, c, -1, name, f.getType(), getter, setter);
  }

  private static FieldAccessor whole(String call, Class<?> c) {
    return new FieldAccessor(call, Kind.WHOLE, c, 0, "*", c, null, null);
  }

  private static Class<?> typeClass(TypeInformation<?> type, String call) {
    if (type == null) {
      throw new IllegalArgumentException(
          call + ": the stream's type is unknown; declare it with returns(...) first");
    }
    if (type.isMissing()) {
      type.createSerializer(); // throws the stored explanation of the missing type
    }
    return type.getTypeClass();
  }

  /** Numbers, strings, characters, booleans and other values without fields of their own. */
  private static boolean isBasic(Class<?> c) {
    return c.isPrimitive()
        || Number.class.isAssignableFrom(c)
        || c == String.class
        || c == Character.class
        || c == Boolean.class
        || c.isEnum()
        || c.getName().startsWith("java.");
  }

  private static int tupleArity(Class<?> c, TypeInformation<?> type, String call) {
    try {
      return ((Tuple) c.getConstructor().newInstance()).getArity();
    } catch (ReflectiveOperationException e) {
      throw new IllegalArgumentException(
          call + " on " + type + ": cannot create a " + c.getName() + " to learn its arity", e);
    }
  }

  private static Class<?> tupleFieldClass(TypeInformation<?> type, int position) {
    Type t = type.getType();
    if (t instanceof ParameterizedType p && position < p.getActualTypeArguments().length) {
      Type arg = p.getActualTypeArguments()[position];
      if (arg instanceof Class<?> argClass) {
        return argClass;
      }
      if (arg instanceof ParameterizedType pa && pa.getRawType() instanceof Class<?> raw) {
        return raw;
      }
    }
    return Object.class;
  }

  private static Field findField(Class<?> c, String name) {
    for (Class<?> k = c; k != null && k != Object.class; k = k.getSuperclass()) {
      try {
        Field f = k.getDeclaredField(name);
        if (!Modifier.isStatic(f.getModifiers())) {
          return f;
        }
      } catch (NoSuchFieldException e) {
        // look in the superclass
      }
    }
    return null;
  }

  private static List<String> tupleFieldNames(int arity) {
    List<String> names = new ArrayList<>();
    for (int i = 0; i < arity; i++) {
      names.add("f" + i);
    }
    return names;
  }

  private static List<String> pojoFieldNames(Class<?> c) {
    List<String> names = new ArrayList<>();
    for (Field f : instanceFields(c)) {
      names.add(f.getName());
    }
    return names;
  }

  private static String firstFieldName(Class<?> c) {
    List<String> names = pojoFieldNames(c);
    return names.isEmpty() ? "field" : names.get(0);
  }

  private static List<Field> instanceFields(Class<?> c) {
    List<Field> fields = new ArrayList<>();
    for (Class<?> k = c; k != null && k != Object.class; k = k.getSuperclass()) {
      for (Field f : k.getDeclaredFields()) {
        if (!Modifier.isStatic(f.getModifiers()) && !f.isSynthetic()) {
          fields.add(f);
        }
      }
    }
    return fields;
  }

  private static IllegalArgumentException noSuchField(
      String call, TypeInformation<?> type, String name, List<String> names) {
    return new IllegalArgumentException(
        call
            + " on "
            + type
            + ": "
            + type.getTypeClass().getSimpleName()
            + " has no field '"
            + name
            + "'; its fields are "
            + String.join(", ", names));
  }

  /** The declared class of the field; {@code Object} where the type does not say. */
  Class<?> fieldClass() {
    return fieldClass;
  }

  /** The call and the field, for messages: {@code sum("price") on field 'price' of Order}. */
  String describe() {
    return kind == Kind.WHOLE
        ? call + " on " + elementClass.getSimpleName() + " values"
        : call + " on field '" + fieldName + "' of " + elementClass.getSimpleName();
  }

  /** The field's value in {@code element}. */
  Object get(Object element) {
    try {
      return switch (kind) {
        case WHOLE -> element;
        case TUPLE -> ((Tuple) element).getField(position);
        case RECORD -> {
          Method accessor = element.getClass().getRecordComponents()[position].getAccessor();
          accessor.setAccessible(true);
          yield accessor.invoke(element);
        }
        case POJO -> getter() != null ? getter().invoke(element) : field().get(element);
      };
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException(describe() + ": cannot read the field of " + element, e);
    }
  }

  /** A copy of {@code element} whose field is {@code value}; {@code element} is not changed. */
  @SuppressWarnings("unchecked")
  <T> T with(T element, Object value) {
    try {
      switch (kind) {
        case WHOLE:
          return (T) value;
        case TUPLE:
          Tuple copy = ((Tuple) element).copy();
          copy.setField(position, value);
          return (T) copy;
        case RECORD:
          RecordComponent[] components = element.getClass().getRecordComponents();
          Object[] args = new Object[components.length];
          Class<?>[] types = new Class<?>[components.length];
          for (int i = 0; i < components.length; i++) {
            types[i] = components[i].getType();
            components[i].getAccessor().setAccessible(true);
            args[i] = i == position ? value : components[i].getAccessor().invoke(element);
          }
          Constructor<?> constructor = element.getClass().getDeclaredConstructor(types);
          constructor.setAccessible(true);
          return (T) constructor.newInstance(args);
        case POJO:
          Object pojo = element.getClass().getConstructor().newInstance();
          for (Field f : instanceFields(element.getClass())) {
            f.setAccessible(true);
            f.set(pojo, f.get(element));
          }
          if (setter() != null) {
            setter().invoke(pojo, value);
          } else {
            field().set(pojo, value);
          }
          return (T) pojo;
        default:
          throw new IllegalStateException("Unknown field kind " + kind);
      }
    } catch (ReflectiveOperationException | RuntimeException e) {
      throw new IllegalStateException(
          describe() + ": cannot make a copy of " + element + " with the field set to " + value, e);
    }
  }

  private Field field() throws NoSuchFieldException {
    if (field == null) {
      Field f = findField(elementClass, fieldName);
      if (f == null) {
        throw new NoSuchFieldException(fieldName);
      }
      f.setAccessible(true);
      field = f;
    }
    return field;
  }

  private Method getter() throws NoSuchMethodException {
    if (getter == null && getterName != null) {
      getter = elementClass.getMethod(getterName);
    }
    return getter;
  }

  private Method setter() throws NoSuchMethodException {
    if (setter == null && setterName != null) {
      setter = elementClass.getMethod(setterName, fieldClass);
    }
    return setter;
  }
}
