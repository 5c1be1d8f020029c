/**
 * The REST API's requests and replies as records, shared by the server's handlers and {@code
 * ClusterClient}; their JSON is Flink's where Flink has the concept, and {@link
 * io.weir.cluster.rest.messages.RestJson} is the one mapper both sides use. Uses nothing of the
 * cluster.
 */
package io.weir.cluster.rest.messages;
