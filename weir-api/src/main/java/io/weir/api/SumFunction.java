package io.weir.api;

import io.weir.api.functions.ReduceFunction;
import io.weir.api.tuple.Tuple;
import java.lang.reflect.Constructor;
import java.lang.reflect.RecordComponent;

/**
 * The reduce function behind {@code KeyedStream.sum}: adds one numeric field and keeps the other
 * fields of the first element, as Flink does.
 */
abstract class SumFunction<T> implements ReduceFunction<T> {
  private static final long serialVersionUID = 1L;

  static <T> SumFunction<T> atPosition(int position) {
    if (position < 0) {
      throw new IllegalArgumentException("sum(" + position + "): position must not be negative");
    }
    return new SumFunction<>() {
      private static final long serialVersionUID = 1L;

      @Override
      @SuppressWarnings("unchecked")
      public T reduce(T a, T b) {
        if (a instanceof Tuple ta) {
          Tuple result = ta.copy();
          checkPosition(ta, position);
          result.setField(position, add(ta.getField(position), ((Tuple) b).getField(position)));
          return (T) result;
        }
        if (a instanceof Number) {
          if (position != 0) {
            throw new IllegalArgumentException(
                "sum(" + position + ") on a stream of numbers: only position 0 exists");
          }
          return (T) add(a, b);
        }
        if (a instanceof Record) {
          RecordComponent[] components = a.getClass().getRecordComponents();
          checkIndex(position, components.length, a);
          return withSum(a, b, position);
        }
        throw new IllegalArgumentException(
            "sum(" + position + ") needs tuples, records or numbers, not " + a.getClass());
      }
    };
  }

  static <T> SumFunction<T> ofField(String field) {
    return new SumFunction<>() {
      private static final long serialVersionUID = 1L;

      @Override
      @SuppressWarnings("unchecked")
      public T reduce(T a, T b) {
        if (a instanceof Tuple ta && field.matches("f\\d")) {
          int position = field.charAt(1) - '0';
          checkPosition(ta, position);
          Tuple result = ta.copy();
          result.setField(position, add(ta.getField(position), ((Tuple) b).getField(position)));
          return (T) result;
        }
        if (a instanceof Record) {
          RecordComponent[] components = a.getClass().getRecordComponents();
          for (int i = 0; i < components.length; i++) {
            if (components[i].getName().equals(field)) {
              return withSum(a, b, i);
            }
          }
        }
        throw new IllegalArgumentException(
            "sum(\"" + field + "\"): " + a.getClass().getName() + " has no such numeric field");
      }
    };
  }

  private static void checkPosition(Tuple t, int position) {
    checkIndex(position, t.getArity(), t);
  }

  private static void checkIndex(int position, int arity, Object value) {
    if (position >= arity) {
      throw new IllegalArgumentException(
          "sum("
              + position
              + "): "
              + value.getClass().getSimpleName()
              + " has only "
              + arity
              + " fields");
    }
  }

  @SuppressWarnings("unchecked")
  private static <T> T withSum(T a, T b, int index) {
    try {
      RecordComponent[] components = a.getClass().getRecordComponents();
      Object[] args = new Object[components.length];
      Class<?>[] types = new Class<?>[components.length];
      for (int i = 0; i < components.length; i++) {
        types[i] = components[i].getType();
        args[i] = components[i].getAccessor().invoke(a);
      }
      args[index] = add(args[index], components[index].getAccessor().invoke(b));
      Constructor<?> constructor = a.getClass().getDeclaredConstructor(types);
      constructor.setAccessible(true);
      return (T) constructor.newInstance(args);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("Cannot sum field " + index + " of " + a.getClass(), e);
    }
  }

  static Object add(Object x, Object y) {
    if (x instanceof Long a) {
      return a + (Long) y;
    } else if (x instanceof Integer a) {
      return a + (Integer) y;
    } else if (x instanceof Double a) {
      return a + (Double) y;
    } else if (x instanceof Float a) {
      return a + (Float) y;
    } else if (x instanceof Short a) {
      return (short) (a + (Short) y);
    } else if (x instanceof Byte a) {
      return (byte) (a + (Byte) y);
    } else if (x instanceof java.math.BigInteger a) {
      return a.add((java.math.BigInteger) y);
    } else if (x instanceof java.math.BigDecimal a) {
      return a.add((java.math.BigDecimal) y);
    }
    throw new IllegalArgumentException(
        "sum needs a numeric field, but found " + (x == null ? "null" : x.getClass().getName()));
  }
}
