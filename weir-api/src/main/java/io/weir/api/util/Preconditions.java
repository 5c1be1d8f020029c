package io.weir.api.util;

/**
 * Argument and state checks as Flink's {@code org.apache.flink.util.Preconditions} writes them, so
 * that a job's checks carry over unchanged: {@code checkArgument(n > 0, "n is %s", n)}. A message
 * template replaces each {@code %s} with the next argument, in order; arguments left over are
 * appended in brackets.
 */
public final class Preconditions {

  private Preconditions() {}

  /** {@code reference}, or a {@link NullPointerException} when it is null. */
  public static <T> T checkNotNull(T reference) {
    if (reference == null) {
      throw new NullPointerException();
    }
    return reference;
  }

  public static <T> T checkNotNull(T reference, Object errorMessage) {
    if (reference == null) {
      throw new NullPointerException(String.valueOf(errorMessage));
    }
    return reference;
  }

  public static <T> T checkNotNull(T reference, String errorMessageTemplate, Object... args) {
    if (reference == null) {
      throw new NullPointerException(format(errorMessageTemplate, args));
    }
    return reference;
  }

  /** An {@link IllegalArgumentException} unless {@code condition} holds. */
  public static void checkArgument(boolean condition) {
    if (!condition) {
      throw new IllegalArgumentException();
    }
  }

  public static void checkArgument(boolean condition, Object errorMessage) {
    if (!condition) {
      throw new IllegalArgumentException(String.valueOf(errorMessage));
    }
  }

  public static void checkArgument(boolean condition, String errorMessageTemplate, Object... args) {
    if (!condition) {
      throw new IllegalArgumentException(format(errorMessageTemplate, args));
    }
  }

  /** An {@link IllegalStateException} unless {@code condition} holds. */
  public static void checkState(boolean condition) {
    if (!condition) {
      throw new IllegalStateException();
    }
  }

  public static void checkState(boolean condition, Object errorMessage) {
    if (!condition) {
      throw new IllegalStateException(String.valueOf(errorMessage));
    }
  }

  public static void checkState(boolean condition, String errorMessageTemplate, Object... args) {
    if (!condition) {
      throw new IllegalStateException(format(errorMessageTemplate, args));
    }
  }

  /** {@code index}, or an {@link IndexOutOfBoundsException} unless {@code 0 <= index < size}. */
  public static int checkElementIndex(int index, int size) {
    checkArgument(size >= 0, "Size was negative.");
    if (index < 0 || index >= size) {
      throw new IndexOutOfBoundsException("Index: " + index + ", Size: " + size);
    }
    return index;
  }

  public static int checkElementIndex(int index, int size, String errorMessage) {
    checkArgument(size >= 0, "Size was negative.");
    if (index < 0 || index >= size) {
      throw new IndexOutOfBoundsException(errorMessage + " Index: " + index + ", Size: " + size);
    }
    return index;
  }

  static String format(String template, Object... args) {
    String text = String.valueOf(template);
    StringBuilder out = new StringBuilder(text.length() + 16 * (args == null ? 0 : args.length));
    int used = 0;
    int from = 0;
    while (args != null && used < args.length) {
      int at = text.indexOf("%s", from);
      if (at < 0) {
        break;
      }
      out.append(text, from, at).append(args[used++]);
      from = at + 2;
    }
    out.append(text.substring(from));
    if (args != null && used < args.length) {
      out.append(" [");
      for (int i = used; i < args.length; i++) {
        out.append(i > used ? ", " : "").append(args[i]);
      }
      out.append(']');
    }
    return out.toString();
  }
}
