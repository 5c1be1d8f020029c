package io.weir.api.eventtime;

import java.io.Serializable;

/** A {@link TimestampAssigner} that can be shipped to the subtasks (a lambda, usually). */
@FunctionalInterface
public interface SerializableTimestampAssigner<T> extends TimestampAssigner<T>, Serializable {}
