package io.weir.api.functions.aggregation;

import io.weir.api.typeutils.TypeInformation;

/**
 * {@code min}, {@code max}, {@code minBy} and {@code maxBy} of one comparable field, as Flink's
 * {@code ComparableAggregator}: {@code min} and {@code max} replace only that field of the first
 * element; {@code minBy} and {@code maxBy} return the whole element holding the smallest or largest
 * value, on ties the first one (or, with {@code first} false, the last one).
 */
public class ComparableAggregator<T> extends AggregationFunction<T> {
  private static final long serialVersionUID = 1L;

  private final FieldAccessor field;
  private final AggregationType aggregationType;
  private final boolean first;

  /** Aggregates the field at {@code position} of elements of {@code type}. */
  public ComparableAggregator(
      int position, TypeInformation<T> type, AggregationType aggregationType, boolean first) {
    this(
        FieldAccessor.at(type, position, call(aggregationType, String.valueOf(position))),
        aggregationType,
        first);
  }

  /** Aggregates the field named {@code field} of elements of {@code type}. */
  public ComparableAggregator(
      String field, TypeInformation<T> type, AggregationType aggregationType, boolean first) {
    this(
        FieldAccessor.named(type, field, call(aggregationType, "\"" + field + "\"")),
        aggregationType,
        first);
  }

  private ComparableAggregator(
      FieldAccessor field, AggregationType aggregationType, boolean first) {
    if (aggregationType == AggregationType.SUM) {
      throw new IllegalArgumentException("Use SumAggregator for sums");
    }
    Class<?> c = field.fieldClass();
    if (!c.isPrimitive() && !Comparable.class.isAssignableFrom(c) && c != Object.class) {
      throw new IllegalArgumentException(
          field.describe()
              + ": the field is a "
              + c.getName()
              + ", which is not Comparable; "
              + aggregationType.name().toLowerCase(java.util.Locale.ROOT).replace("by", "By")
              + " needs a field whose values compare (numbers, strings, Comparable classes)");
    }
    this.field = field;
    this.aggregationType = aggregationType;
    this.first = first;
  }

  private static String call(AggregationType type, String field) {
    return switch (type) {
      case SUM -> "sum(" + field + ")";
      case MIN -> "min(" + field + ")";
      case MAX -> "max(" + field + ")";
      case MINBY -> "minBy(" + field + ")";
      case MAXBY -> "maxBy(" + field + ")";
    };
  }

  @Override
  @SuppressWarnings("unchecked")
  public T reduce(T value1, T value2) {
    Object o1 = field.get(value1);
    Object o2 = field.get(value2);
    if (o1 == null || o2 == null) {
      throw new NullPointerException(field.describe() + ": the field is null in an element");
    }
    if (!(o1 instanceof Comparable<?>)) {
      throw new IllegalArgumentException(
          field.describe() + ": a " + o1.getClass().getName() + " is not Comparable");
    }
    int c = ((Comparable<Object>) o1).compareTo(o2);
    boolean min =
        aggregationType == AggregationType.MIN || aggregationType == AggregationType.MINBY;
    // > 0 when the new element's value is more extreme than the aggregate's.
    int newIsMore = min ? c : -c;
    return switch (aggregationType) {
      case MIN, MAX -> newIsMore > 0 ? field.with(value1, o2) : value1;
      case MINBY, MAXBY -> newIsMore > 0 || (newIsMore == 0 && !first) ? value2 : value1;
      case SUM -> throw new IllegalStateException("sum is SumAggregator's");
    };
  }
}
