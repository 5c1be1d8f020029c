package io.weir.api.typeutils;

import java.lang.reflect.Constructor;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;

/** JVM method descriptors, such as {@code (Ljava/lang/String;I)J}: building and parsing them. */
final class Descriptors {

  private Descriptors() {}

  static String of(Method m) {
    return of(m.getParameterTypes(), m.getReturnType());
  }

  static String of(Constructor<?> c) {
    return of(c.getParameterTypes(), void.class);
  }

  private static String of(Class<?>[] parameters, Class<?> returnType) {
    StringBuilder s = new StringBuilder("(");
    for (Class<?> p : parameters) {
      s.append(of(p));
    }
    return s.append(')').append(of(returnType)).toString();
  }

  static String of(Class<?> c) {
    if (c.isArray()) {
      return c.getName().replace('.', '/');
    } else if (!c.isPrimitive()) {
      return "L" + c.getName().replace('.', '/') + ";";
    } else if (c == int.class) {
      return "I";
    } else if (c == long.class) {
      return "J";
    } else if (c == boolean.class) {
      return "Z";
    } else if (c == byte.class) {
      return "B";
    } else if (c == char.class) {
      return "C";
    } else if (c == short.class) {
      return "S";
    } else if (c == float.class) {
      return "F";
    } else if (c == double.class) {
      return "D";
    }
    return "V";
  }

  static Class<?>[] parameterTypes(String descriptor, ClassLoader loader) {
    List<Class<?>> types = new ArrayList<>();
    int i = 1; // after '('
    while (descriptor.charAt(i) != ')') {
      int end = endOfType(descriptor, i);
      types.add(load(descriptor.substring(i, end), loader));
      i = end;
    }
    return types.toArray(new Class<?>[0]);
  }

  static Class<?> returnType(String descriptor, ClassLoader loader) {
    return load(descriptor.substring(descriptor.indexOf(')') + 1), loader);
  }

  private static int endOfType(String descriptor, int start) {
    int i = start;
    while (descriptor.charAt(i) == '[') {
      i++;
    }
    return descriptor.charAt(i) == 'L' ? descriptor.indexOf(';', i) + 1 : i + 1;
  }

  private static Class<?> load(String type, ClassLoader loader) {
    Class<?> primitive =
        switch (type) {
          case "I" -> int.class;
          case "J" -> long.class;
          case "Z" -> boolean.class;
          case "B" -> byte.class;
          case "C" -> char.class;
          case "S" -> short.class;
          case "F" -> float.class;
          case "D" -> double.class;
          case "V" -> void.class;
          default -> null;
        };
    if (primitive != null) {
      return primitive;
    }
    String name =
        type.startsWith("[")
            ? type.replace('/', '.')
            : type.substring(1, type.length() - 1).replace('/', '.');
    try {
      return Class.forName(name, false, loader);
    } catch (ClassNotFoundException e) {
      throw new IllegalStateException("cannot load " + name + " from a lambda signature", e);
    }
  }
}
