package io.weir.api.functions;

/**
 * Extracts the key of an element for {@code keyBy}. The key must not be null, and its {@code
 * hashCode} must be stable across JVMs (not identity-based), because it decides the key group.
 */
@FunctionalInterface
public interface KeySelector<T, K> extends Function {
  K getKey(T value) throws Exception;
}
