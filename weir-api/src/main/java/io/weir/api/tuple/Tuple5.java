package io.weir.api.tuple;

import java.util.Objects;

/**
 * A tuple of 5 fields, {@code f0} to {@code f4}, which may be read and written directly.
 *
 * <p>Equality and hash code are those of the fields, so tuples work as keys. {@link #toString()}
 * prints {@code (a,b,c,d,e)} like Flink.
 */
public class Tuple5<T0, T1, T2, T3, T4> extends Tuple {
  private static final long serialVersionUID = 1L;

  /** Field 0. */
  public T0 f0;

  /** Field 1. */
  public T1 f1;

  /** Field 2. */
  public T2 f2;

  /** Field 3. */
  public T3 f3;

  /** Field 4. */
  public T4 f4;

  /** A tuple with all fields null. */
  public Tuple5() {}

  public Tuple5(T0 f0, T1 f1, T2 f2, T3 f3, T4 f4) {
    this.f0 = f0;
    this.f1 = f1;
    this.f2 = f2;
    this.f3 = f3;
    this.f4 = f4;
  }

  /** Shorthand for the all-field constructor that infers the field types. */
  public static <T0, T1, T2, T3, T4> Tuple5<T0, T1, T2, T3, T4> of(
      T0 f0, T1 f1, T2 f2, T3 f3, T4 f4) {
    return new Tuple5<>(f0, f1, f2, f3, f4);
  }

  @Override
  public int getArity() {
    return 5;
  }

  @Override
  @SuppressWarnings({"unchecked", "TypeParameterUnusedInFormals"})
  public <T> T getField(int pos) {
    return (T)
        switch (pos) {
          case 0 -> f0;
          case 1 -> f1;
          case 2 -> f2;
          case 3 -> f3;
          case 4 -> f4;
          default -> throw noSuchField(pos, 5);
        };
  }

  @Override
  @SuppressWarnings("unchecked")
  public void setField(int pos, Object value) {
    switch (pos) {
      case 0 -> this.f0 = (T0) value;
      case 1 -> this.f1 = (T1) value;
      case 2 -> this.f2 = (T2) value;
      case 3 -> this.f3 = (T3) value;
      case 4 -> this.f4 = (T4) value;
      default -> throw noSuchField(pos, 5);
    }
  }

  /** Sets all fields at once. */
  public void setFields(T0 f0, T1 f1, T2 f2, T3 f3, T4 f4) {
    this.f0 = f0;
    this.f1 = f1;
    this.f2 = f2;
    this.f3 = f3;
    this.f4 = f4;
  }

  @Override
  public Tuple5<T0, T1, T2, T3, T4> copy() {
    return new Tuple5<>(f0, f1, f2, f3, f4);
  }

  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof Tuple5<?, ?, ?, ?, ?> that)) {
      return false;
    }
    return Objects.equals(f0, that.f0)
        && Objects.equals(f1, that.f1)
        && Objects.equals(f2, that.f2)
        && Objects.equals(f3, that.f3)
        && Objects.equals(f4, that.f4);
  }

  @Override
  public int hashCode() {
    int result = f0 != null ? f0.hashCode() : 0;
    result = 31 * result + (f1 != null ? f1.hashCode() : 0);
    result = 31 * result + (f2 != null ? f2.hashCode() : 0);
    result = 31 * result + (f3 != null ? f3.hashCode() : 0);
    result = 31 * result + (f4 != null ? f4.hashCode() : 0);
    return result;
  }

  @Override
  public String toString() {
    return "("
        + fieldToString(f0)
        + ","
        + fieldToString(f1)
        + ","
        + fieldToString(f2)
        + ","
        + fieldToString(f3)
        + ","
        + fieldToString(f4)
        + ")";
  }
}
