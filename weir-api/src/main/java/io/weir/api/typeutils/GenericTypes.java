package io.weir.api.typeutils;

import java.lang.reflect.Array;
import java.lang.reflect.GenericArrayType;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.lang.reflect.TypeVariable;
import java.lang.reflect.WildcardType;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * Small reflection helpers over {@link Type}: building parameterized types, substituting type
 * variables and resolving the type arguments a class gives to one of its supertypes.
 */
final class GenericTypes {

  private GenericTypes() {}

  /** {@code raw<args>}; equal to, and hashing like, the JDK's own parameterized types. */
  static ParameterizedType parameterized(Class<?> raw, Type... args) {
    if (raw.getTypeParameters().length != args.length) {
      throw new IllegalArgumentException(
          raw.getName()
              + " has "
              + raw.getTypeParameters().length
              + " type parameters, not "
              + args.length);
    }
    return new ParameterizedTypeImpl(raw, args.clone(), raw.getDeclaringClass());
  }

  /** {@code component[]}: a class for class components, a generic array type otherwise. */
  static Type arrayOf(Type component) {
    if (component instanceof Class<?> c) {
      return Array.newInstance(c, 0).getClass();
    }
    return new GenericArrayTypeImpl(component);
  }

  /** The class that values of {@code type} are instances of (the erasure). */
  static Class<?> rawClass(Type type) {
    if (type instanceof Class<?> c) {
      return c;
    } else if (type instanceof ParameterizedType p) {
      return (Class<?>) p.getRawType();
    } else if (type instanceof GenericArrayType g) {
      return Array.newInstance(rawClass(g.getGenericComponentType()), 0).getClass();
    } else if (type instanceof WildcardType w) {
      return rawClass(w.getUpperBounds()[0]);
    } else if (type instanceof TypeVariable<?> v) {
      return rawClass(v.getBounds()[0]);
    }
    throw new IllegalArgumentException("Unknown kind of type: " + type);
  }

  /** The boxed class for a primitive class, the class itself otherwise. */
  static Class<?> box(Class<?> c) {
    if (!c.isPrimitive()) {
      return c;
    }
    if (c == int.class) {
      return Integer.class;
    } else if (c == long.class) {
      return Long.class;
    } else if (c == boolean.class) {
      return Boolean.class;
    } else if (c == double.class) {
      return Double.class;
    } else if (c == float.class) {
      return Float.class;
    } else if (c == short.class) {
      return Short.class;
    } else if (c == byte.class) {
      return Byte.class;
    } else if (c == char.class) {
      return Character.class;
    }
    return Void.class;
  }

  /** The first type variable in {@code type}, or null when it has none. */
  static TypeVariable<?> findTypeVariable(Type type) {
    if (type instanceof TypeVariable<?> v) {
      return v;
    } else if (type instanceof ParameterizedType p) {
      for (Type arg : p.getActualTypeArguments()) {
        TypeVariable<?> v = findTypeVariable(arg);
        if (v != null) {
          return v;
        }
      }
    } else if (type instanceof GenericArrayType g) {
      return findTypeVariable(g.getGenericComponentType());
    } else if (type instanceof WildcardType w) {
      for (Type bound : w.getUpperBounds()) {
        TypeVariable<?> v = findTypeVariable(bound);
        if (v != null) {
          return v;
        }
      }
      for (Type bound : w.getLowerBounds()) {
        TypeVariable<?> v = findTypeVariable(bound);
        if (v != null) {
          return v;
        }
      }
    }
    return null;
  }

  /** True if {@code variable} occurs anywhere inside {@code type}. */
  static boolean mentions(Type type, TypeVariable<?> variable) {
    if (type.equals(variable)) {
      return true;
    } else if (type instanceof ParameterizedType p) {
      return Arrays.stream(p.getActualTypeArguments()).anyMatch(t -> mentions(t, variable));
    } else if (type instanceof GenericArrayType g) {
      return mentions(g.getGenericComponentType(), variable);
    } else if (type instanceof WildcardType w) {
      return Arrays.stream(w.getUpperBounds()).anyMatch(t -> mentions(t, variable))
          || Arrays.stream(w.getLowerBounds()).anyMatch(t -> mentions(t, variable));
    }
    return false;
  }

  /** A raw class with type parameters (such as {@code Tuple2}), possibly as array component. */
  static Class<?> findRawGenericClass(Type type) {
    if (type instanceof Class<?> c) {
      Class<?> base = c;
      while (base.isArray()) {
        base = base.getComponentType();
      }
      return base.getTypeParameters().length > 0 ? base : null;
    } else if (type instanceof ParameterizedType p) {
      for (Type arg : p.getActualTypeArguments()) {
        Class<?> raw = findRawGenericClass(arg);
        if (raw != null) {
          return raw;
        }
      }
    } else if (type instanceof GenericArrayType g) {
      return findRawGenericClass(g.getGenericComponentType());
    }
    return null;
  }

  /** {@code type} with the type variables in {@code bindings} replaced by their values. */
  static Type substitute(Type type, Map<TypeVariable<?>, Type> bindings) {
    if (bindings.isEmpty() || type instanceof Class<?>) {
      return type;
    } else if (type instanceof TypeVariable<?> v) {
      Type bound = bindings.get(v);
      return bound == null ? v : bound;
    } else if (type instanceof ParameterizedType p) {
      Type[] args = p.getActualTypeArguments();
      Type[] substituted = new Type[args.length];
      boolean changed = false;
      for (int i = 0; i < args.length; i++) {
        substituted[i] = substitute(args[i], bindings);
        changed |= substituted[i] != args[i];
      }
      return changed
          ? new ParameterizedTypeImpl((Class<?>) p.getRawType(), substituted, p.getOwnerType())
          : p;
    } else if (type instanceof GenericArrayType g) {
      Type component = substitute(g.getGenericComponentType(), bindings);
      return component == g.getGenericComponentType() ? g : arrayOf(component);
    } else if (type instanceof WildcardType w) {
      Type[] upper = substituteAll(w.getUpperBounds(), bindings);
      Type[] lower = substituteAll(w.getLowerBounds(), bindings);
      return new WildcardTypeImpl(upper, lower);
    }
    return type;
  }

  private static Type[] substituteAll(Type[] types, Map<TypeVariable<?>, Type> bindings) {
    Type[] result = new Type[types.length];
    for (int i = 0; i < types.length; i++) {
      result[i] = substitute(types[i], bindings);
    }
    return result;
  }

  /** The bindings of {@code type}'s own type parameters: {@code List<String>} binds E to String. */
  static Map<TypeVariable<?>, Type> bindingsOf(Type type) {
    if (!(type instanceof ParameterizedType p)) {
      return Map.of();
    }
    TypeVariable<?>[] params = ((Class<?>) p.getRawType()).getTypeParameters();
    Type[] args = p.getActualTypeArguments();
    Map<TypeVariable<?>, Type> bindings = new HashMap<>();
    for (int i = 0; i < params.length; i++) {
      bindings.put(params[i], args[i]);
    }
    return bindings;
  }

  /**
   * The type {@code start} gives to its supertype {@code target}, as a {@code target<...>} with the
   * type variables resolved through the chain of generic superclasses and interfaces, the raw
   * {@code target} when some link is raw, or null when {@code start} is not a {@code target}.
   */
  static Type resolveSupertype(Type start, Class<?> target) {
    Class<?> raw = rawClass(start);
    if (!target.isAssignableFrom(raw)) {
      return null;
    }
    return resolveSupertype(start, target, bindingsOf(start));
  }

  private static Type resolveSupertype(
      Type current, Class<?> target, Map<TypeVariable<?>, Type> bindings) {
    Class<?> raw = rawClass(current);
    if (raw == target) {
      if (!(current instanceof ParameterizedType parameterized)) {
        return target;
      }
      TypeVariable<?>[] parameters = target.getTypeParameters();
      Type[] arguments = new Type[parameters.length];
      for (int i = 0; i < parameters.length; i++) {
        arguments[i] = bindings.getOrDefault(parameters[i], parameters[i]);
      }
      return new ParameterizedTypeImpl(target, arguments, parameterized.getOwnerType());
    }
    Type superclass = raw.getGenericSuperclass();
    if (superclass != null && target.isAssignableFrom(rawClass(superclass))) {
      return resolveSupertype(superclass, target, extend(bindings, superclass));
    }
    for (Type iface : raw.getGenericInterfaces()) {
      if (target.isAssignableFrom(rawClass(iface))) {
        return resolveSupertype(iface, target, extend(bindings, iface));
      }
    }
    return null;
  }

  /** Bindings for {@code supertype}'s own parameters, given the bindings of its subclass. */
  private static Map<TypeVariable<?>, Type> extend(
      Map<TypeVariable<?>, Type> outer, Type supertype) {
    if (!(supertype instanceof ParameterizedType)) {
      return Map.of();
    }
    Map<TypeVariable<?>, Type> own = bindingsOf(supertype);
    Map<TypeVariable<?>, Type> result = new HashMap<>();
    own.forEach((variable, value) -> result.put(variable, substitute(value, outer)));
    return result;
  }

  /** A short readable name: simple class names, with type arguments. */
  static String simpleName(Type type) {
    if (type instanceof Class<?> c) {
      return c.isArray() ? simpleName(c.getComponentType()) + "[]" : c.getSimpleName();
    } else if (type instanceof ParameterizedType p) {
      return simpleName(p.getRawType())
          + Arrays.stream(p.getActualTypeArguments())
              .map(GenericTypes::simpleName)
              .collect(Collectors.joining(", ", "<", ">"));
    } else if (type instanceof GenericArrayType g) {
      return simpleName(g.getGenericComponentType()) + "[]";
    }
    return type.getTypeName();
  }

  private static final class ParameterizedTypeImpl implements ParameterizedType {
    private final Class<?> raw;
    private final Type[] args;
    private final Type owner;

    ParameterizedTypeImpl(Class<?> raw, Type[] args, Type owner) {
      this.raw = raw;
      this.args = args;
      this.owner = owner;
    }

    @Override
    public Type[] getActualTypeArguments() {
      return args.clone();
    }

    @Override
    public Type getRawType() {
      return raw;
    }

    @Override
    public Type getOwnerType() {
      return owner;
    }

    // Same definition as sun.reflect.generics.reflectiveObjects.ParameterizedTypeImpl, so the two
    // are interchangeable in maps and comparisons.
    @Override
    public boolean equals(Object o) {
      return o instanceof ParameterizedType that
          && Objects.equals(owner, that.getOwnerType())
          && Objects.equals(raw, that.getRawType())
          && Arrays.equals(args, that.getActualTypeArguments());
    }

    @Override
    public int hashCode() {
      return Arrays.hashCode(args) ^ Objects.hashCode(owner) ^ Objects.hashCode(raw);
    }

    @Override
    public String toString() {
      return getTypeName();
    }

    @Override
    public String getTypeName() {
      return raw.getTypeName()
          + Arrays.stream(args).map(Type::getTypeName).collect(Collectors.joining(", ", "<", ">"));
    }
  }

  private static final class GenericArrayTypeImpl implements GenericArrayType {
    private final Type component;

    GenericArrayTypeImpl(Type component) {
      this.component = component;
    }

    @Override
    public Type getGenericComponentType() {
      return component;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof GenericArrayType that
          && Objects.equals(component, that.getGenericComponentType());
    }

    @Override
    public int hashCode() {
      return Objects.hashCode(component);
    }

    @Override
    public String toString() {
      return getTypeName();
    }

    @Override
    public String getTypeName() {
      return component.getTypeName() + "[]";
    }
  }

  private static final class WildcardTypeImpl implements WildcardType {
    private final Type[] upper;
    private final Type[] lower;

    WildcardTypeImpl(Type[] upper, Type[] lower) {
      this.upper = upper;
      this.lower = lower;
    }

    @Override
    public Type[] getUpperBounds() {
      return upper.clone();
    }

    @Override
    public Type[] getLowerBounds() {
      return lower.clone();
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof WildcardType that
          && Arrays.equals(upper, that.getUpperBounds())
          && Arrays.equals(lower, that.getLowerBounds());
    }

    @Override
    public int hashCode() {
      return Arrays.hashCode(upper) ^ Arrays.hashCode(lower);
    }

    @Override
    public String toString() {
      return getTypeName();
    }

    @Override
    public String getTypeName() {
      if (lower.length > 0) {
        return "? super " + lower[0].getTypeName();
      }
      return upper.length == 0 || upper[0] == Object.class
          ? "?"
          : "? extends " + upper[0].getTypeName();
    }
  }
}
