package io.weir.api.tuple;

import java.util.Objects;

/**
 * A tuple of 2 fields, {@code f0} to {@code f1}, which may be read and written directly.
 *
 * <p>Equality and hash code are those of the fields, so tuples work as keys. {@link #toString()}
 * prints {@code (a,b)} like Flink.
 */
public class Tuple2<T0, T1> extends Tuple {
  private static final long serialVersionUID = 1L;

  /** Field 0. */
  public T0 f0;

  /** Field 1. */
  public T1 f1;

  /** A tuple with all fields null. */
  public Tuple2() {}

  public Tuple2(T0 f0, T1 f1) {
    this.f0 = f0;
    this.f1 = f1;
  }

  /** Shorthand for the all-field constructor that infers the field types. */
  public static <T0, T1> Tuple2<T0, T1> of(T0 f0, T1 f1) {
    return new Tuple2<>(f0, f1);
  }

  @Override
  public int getArity() {
    return 2;
  }

  @Override
  @SuppressWarnings({"unchecked", "TypeParameterUnusedInFormals"})
  public <T> T getField(int pos) {
    return (T)
        switch (pos) {
          case 0 -> f0;
          case 1 -> f1;
          default -> throw noSuchField(pos, 2);
        };
  }

  @Override
  @SuppressWarnings("unchecked")
  public void setField(int pos, Object value) {
    switch (pos) {
      case 0 -> this.f0 = (T0) value;
      case 1 -> this.f1 = (T1) value;
      default -> throw noSuchField(pos, 2);
    }
  }

  /** Sets all fields at once. */
  public void setFields(T0 f0, T1 f1) {
    this.f0 = f0;
    this.f1 = f1;
  }

  @Override
  public Tuple2<T0, T1> copy() {
    return new Tuple2<>(f0, f1);
  }

  /** A new tuple with the fields swapped: {@code (f1,f0)}. */
  public Tuple2<T1, T0> swap() {
    return new Tuple2<>(f1, f0);
  }

  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof Tuple2<?, ?> that)) {
      return false;
    }
    return Objects.equals(f0, that.f0) && Objects.equals(f1, that.f1);
  }

  @Override
  public int hashCode() {
    int result = f0 != null ? f0.hashCode() : 0;
    result = 31 * result + (f1 != null ? f1.hashCode() : 0);
    return result;
  }

  @Override
  public String toString() {
    return "(" + fieldToString(f0) + "," + fieldToString(f1) + ")";
  }
}
