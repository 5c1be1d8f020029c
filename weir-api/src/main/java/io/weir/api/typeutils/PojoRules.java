package io.weir.api.typeutils;

import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.HashSet;
import java.util.Locale;
import java.util.Set;

/**
 * Flink's rules for a POJO, which Weir serializes field by field without being told ({@code
 * TypeExtractor.analyzePojo} in Flink): a public, concrete, top-level or static nested class with a
 * public no-argument constructor and at least one field, whose every non-static, non-transient
 * field (its own and its superclasses') is public or has a getter ({@code getX()}, {@code isX()}
 * for a boolean, or {@code x()}) and a setter ({@code setX(value)}, returning nothing or the class)
 * of the field's type. Any other class is serialized with Kryo, as Flink's {@code GenericTypeInfo}.
 */
final class PojoRules {

  private PojoRules() {}

  /** Null when {@code c} is a POJO by Flink's rules, otherwise why it is not, for the log. */
  static String whyNotPojo(Class<?> c) {
    int m = c.getModifiers();
    if (c.isInterface() || Modifier.isAbstract(m) || c.isPrimitive() || c.isArray()) {
      return "it is not a concrete class";
    } else if (!Modifier.isPublic(m)) {
      return "it is not public";
    } else if (c.getEnclosingClass() != null && !Modifier.isStatic(m)) {
      return "it is an inner class that is not static";
    } else if (c.isEnum() || c.isRecord() || c.isAnonymousClass() || c.isLocalClass()) {
      return "it is an enum, a record, an anonymous or a local class";
    }
    try {
      Constructor<?> constructor = c.getDeclaredConstructor();
      if (!Modifier.isPublic(constructor.getModifiers())) {
        return "its constructor without arguments is not public";
      }
    } catch (NoSuchMethodException e) {
      return "it has no constructor without arguments";
    }
    Set<String> names = new HashSet<>();
    int fields = 0;
    for (Class<?> k = c; k != null && k != Object.class; k = k.getSuperclass()) {
      for (Field f : k.getDeclaredFields()) {
        int fm = f.getModifiers();
        if (Modifier.isStatic(fm) || Modifier.isTransient(fm) || f.isSynthetic()) {
          continue;
        }
        if (!names.add(f.getName())) {
          return "field '" + f.getName() + "' hides a superclass field of the same name";
        }
        if (!Modifier.isPublic(fm) && !(hasGetter(c, f) && hasSetter(c, f))) {
          return "field '"
              + f.getName()
              + "' is neither public nor has a getter and a setter (set"
              + capitalized(f.getName())
              + ")";
        }
        if (!accessible(f)) {
          return "field '" + f.getName() + "' cannot be accessed (its module does not open it)";
        }
        fields++;
      }
    }
    return fields == 0 ? "it has no fields" : null;
  }

  private static boolean hasGetter(Class<?> c, Field f) {
    String name = f.getName().toLowerCase(Locale.ROOT);
    for (Method m : c.getMethods()) {
      String method = m.getName().toLowerCase(Locale.ROOT);
      boolean named =
          method.equals("get" + name)
              || method.equals(name)
              || (method.equals("is" + name) && f.getType() == boolean.class);
      if (named
          && m.getParameterCount() == 0
          && !Modifier.isStatic(m.getModifiers())
          && (m.getGenericReturnType().equals(f.getGenericType())
              || m.getReturnType() == f.getType())) {
        return true;
      }
    }
    return false;
  }

  private static boolean hasSetter(Class<?> c, Field f) {
    String name = f.getName().toLowerCase(Locale.ROOT);
    for (Method m : c.getMethods()) {
      if (m.getName().toLowerCase(Locale.ROOT).equals("set" + name)
          && m.getParameterCount() == 1
          && !Modifier.isStatic(m.getModifiers())
          && (m.getGenericParameterTypes()[0].equals(f.getGenericType())
              || m.getParameterTypes()[0] == f.getType())
          && (m.getReturnType() == void.class || m.getReturnType() == c)) {
        return true;
      }
    }
    return false;
  }

  private static boolean accessible(Field f) {
    try {
      f.setAccessible(true);
      return true;
    } catch (RuntimeException e) {
      return false;
    }
  }

  private static String capitalized(String name) {
    return name.isEmpty() ? name : Character.toUpperCase(name.charAt(0)) + name.substring(1);
  }
}
