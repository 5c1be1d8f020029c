package io.weir.api.util;

import java.util.Iterator;

/**
 * An iterator over results that holds something to release (a running job), as Flink's {@code
 * org.apache.flink.util.CloseableIterator}: close it, best in a try-with-resources block, when
 * done.
 */
public interface CloseableIterator<T> extends Iterator<T>, AutoCloseable {}
