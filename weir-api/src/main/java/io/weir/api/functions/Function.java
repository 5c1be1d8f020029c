package io.weir.api.functions;

import java.io.Serializable;

/**
 * Marker for user functions. Functions are {@link Serializable} so that a lambda's signature can be
 * read for type extraction and so that a function can be shipped to a remote TaskManager.
 */
public interface Function extends Serializable {}
