package io.weir.api.tuple;

import java.io.Serializable;
import java.util.Arrays;

/**
 * A fixed number of fields of possibly different types, as in Flink: {@link Tuple2} to {@link
 * Tuple5}, with public mutable fields {@code f0}, {@code f1}, ... Tuples are not thread-safe.
 */
public abstract class Tuple implements Serializable {
  private static final long serialVersionUID = 1L;

  /** The largest arity Weir has a tuple class for. */
  public static final int MAX_ARITY = 5;

  /** The number of fields. */
  public abstract int getArity();

  /** Field number {@code pos} (0-based), cast to whatever the caller expects. */
  @SuppressWarnings("TypeParameterUnusedInFormals") // as in Flink, for convenient reads
  public abstract <T> T getField(int pos);

  /** Sets field number {@code pos} (0-based); the value must have the field's type. */
  public abstract void setField(int pos, Object value);

  /** A shallow copy: a new tuple holding the same field values. */
  public abstract Tuple copy();

  /** Field number {@code pos}, or a {@link NullPointerException} naming the field when null. */
  @SuppressWarnings("TypeParameterUnusedInFormals")
  public <T> T getFieldNotNull(int pos) {
    T field = getField(pos);
    if (field == null) {
      throw new NullPointerException("Field f" + pos + " of " + this + " is null");
    }
    return field;
  }

  /** The tuple class of the given arity (2 to {@value #MAX_ARITY}). */
  @SuppressWarnings("unchecked")
  public static Class<? extends Tuple> getTupleClass(int arity) {
    return switch (arity) {
      case 2 -> Tuple2.class;
      case 3 -> Tuple3.class;
      case 4 -> Tuple4.class;
      case 5 -> Tuple5.class;
      default ->
          throw new IllegalArgumentException(
              "Weir has tuples of 2 to "
                  + MAX_ARITY
                  + " fields, not "
                  + arity
                  + "; use a Java record for more fields");
    };
  }

  /** A new tuple of the given arity with all fields null. */
  public static Tuple newInstance(int arity) {
    return switch (arity) {
      case 2 -> new Tuple2<>();
      case 3 -> new Tuple3<>();
      case 4 -> new Tuple4<>();
      case 5 -> new Tuple5<>();
      default ->
          throw new IllegalArgumentException(
              "Weir has tuples of 2 to "
                  + MAX_ARITY
                  + " fields, not "
                  + arity
                  + "; use a Java record for more fields");
    };
  }

  /** Formats a field like Flink: arrays show their contents, {@code null} shows as "null". */
  static String fieldToString(Object field) {
    if (field == null || !field.getClass().isArray()) {
      return String.valueOf(field);
    }
    String deep = Arrays.deepToString(new Object[] {field});
    return deep.substring(1, deep.length() - 1);
  }

  static IndexOutOfBoundsException noSuchField(int pos, int arity) {
    return new IndexOutOfBoundsException(
        "Field " + pos + " does not exist in a tuple of " + arity + " fields");
  }
}
