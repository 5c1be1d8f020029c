package io.weir.cluster.rest.messages;

/**
 * {@code POST /jars/upload}: the stored jar.
 *
 * @param filename the jar's name on the JobManager ({@code <id>.jar})
 * @param id the jar's content hash, for {@code /jars/:jarid/run}
 * @param status {@code success}
 */
public record JarUploadResponse(String filename, String id, String status) {}
