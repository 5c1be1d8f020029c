package io.weir.cluster.rest.messages;

/** One setting, as {@code GET /jobmanager/config} lists them (Flink's fields). */
public record ConfigEntry(String key, String value) {}
