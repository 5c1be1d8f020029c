package io.weir.api.functions.aggregation;

import io.weir.api.typeutils.TypeInformation;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Set;

/**
 * Adds one numeric field; the other fields keep the values of the first element, as Flink's {@code
 * SumAggregator}. The field is chosen by position or name on tuples, records, POJOs and numbers.
 */
public class SumAggregator<T> extends AggregationFunction<T> {
  private static final long serialVersionUID = 1L;

  private static final Set<Class<?>> NUMBERS =
      Set.of(
          Integer.class,
          Long.class,
          Short.class,
          Byte.class,
          Float.class,
          Double.class,
          BigInteger.class,
          BigDecimal.class,
          int.class,
          long.class,
          short.class,
          byte.class,
          float.class,
          double.class);

  private final FieldAccessor field;

  /** Sums the field at {@code position} of elements of {@code type}. */
  public SumAggregator(int position, TypeInformation<T> type) {
    this(FieldAccessor.at(type, position, "sum(" + position + ")"));
  }

  /** Sums the field named {@code field} of elements of {@code type}. */
  public SumAggregator(String field, TypeInformation<T> type) {
    this(FieldAccessor.named(type, field, "sum(\"" + field + "\")"));
  }

  private SumAggregator(FieldAccessor field) {
    Class<?> c = field.fieldClass();
    if (!NUMBERS.contains(c) && c != Object.class && c != Number.class) {
      throw new IllegalArgumentException(
          field.describe()
              + ": the field is a "
              + c.getSimpleName()
              + ", not a number; sum adds int, long, short, byte, float, double, BigInteger or"
              + " BigDecimal fields");
    }
    this.field = field;
  }

  @Override
  public T reduce(T value1, T value2) {
    return field.with(value1, add(field.get(value1), field.get(value2)));
  }

  private Object add(Object x, Object y) {
    if (x == null || y == null) {
      throw new NullPointerException(field.describe() + ": the field is null in an element");
    }
    if (x instanceof Integer a && y instanceof Integer b) {
      return a + b;
    } else if (x instanceof Long a && y instanceof Long b) {
      return a + b;
    } else if (x instanceof Double a && y instanceof Double b) {
      return a + b;
    } else if (x instanceof Float a && y instanceof Float b) {
      return a + b;
    } else if (x instanceof Short a && y instanceof Short b) {
      return (short) (a + b);
    } else if (x instanceof Byte a && y instanceof Byte b) {
      return (byte) (a + b);
    } else if (x instanceof BigInteger a && y instanceof BigInteger b) {
      return a.add(b);
    } else if (x instanceof BigDecimal a && y instanceof BigDecimal b) {
      return a.add(b);
    }
    throw new IllegalArgumentException(
        field.describe()
            + ": cannot add a "
            + x.getClass().getName()
            + " and a "
            + y.getClass().getName()
            + "; sum adds fields of one numeric type");
  }
}
