package io.weir.api.state;

/** A value per key that {@code add} combines with a reduce function. */
public interface ReducingState<T> extends AppendingState<T, T> {}
