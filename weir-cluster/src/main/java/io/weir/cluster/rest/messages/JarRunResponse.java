package io.weir.cluster.rest.messages;

/**
 * {@code POST /jars/:jarid/run}: the job the program submitted.
 *
 * @param jobid its id
 */
public record JarRunResponse(String jobid) {}
