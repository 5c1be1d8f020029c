package com.example.classloading;

/**
 * How a total is written, found with {@link java.util.ServiceLoader#load(Class)}: through the
 * thread's context class loader, as many libraries look for their plugins. Its one implementation,
 * {@link PlainReport}, is named in the jar's {@code META-INF/services}.
 */
public interface Report {

  /** The line of {@code total}, its sum in {@code unit}. */
  String line(SensorTotal total, String unit);
}
