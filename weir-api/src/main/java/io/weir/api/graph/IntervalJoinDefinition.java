package io.weir.api.graph;

import io.weir.api.functions.ProcessJoinFunction;
import java.io.Serializable;

/**
 * An interval join: a left element at time {@code t} joins the right elements of its key at times
 * in {@code [t + lowerBound, t + upperBound]} (each bound exclusive if so marked). Shipped to each
 * subtask as user code.
 */
public record IntervalJoinDefinition(
    long lowerBound,
    long upperBound,
    boolean lowerBoundExclusive,
    boolean upperBoundExclusive,
    ProcessJoinFunction<?, ?, ?> function)
    implements Serializable {}
