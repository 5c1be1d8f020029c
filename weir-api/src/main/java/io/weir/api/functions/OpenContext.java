package io.weir.api.functions;

/** Passed to {@link RichFunction#open}; reserved for future settings, as in Flink 2.x. */
public interface OpenContext {}
