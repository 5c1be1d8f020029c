package io.weir.api.windowing.windows;

/**
 * A group of elements of one key that a window function sees together. Implementations are values
 * (equal when they cover the same elements) with a serializer from their assigner.
 */
public interface Window {

  /** The largest timestamp that belongs to this window. */
  long maxTimestamp();
}
