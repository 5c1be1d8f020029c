/**
 * A job's program and the ways it reaches a cluster. {@link io.weir.cluster.client.ClusterClient}
 * is the REST client of {@code weir run}, {@code list}, {@code cancel}, {@code savepoint} and
 * {@code stop}; it reads the REST API's replies as the records of {@code rest.messages}. {@link
 * io.weir.cluster.client.JobProgram} runs a jar's {@code main} in its own {@link
 * io.weir.cluster.client.JobClassLoader}, with {@link io.weir.cluster.client.ClusterExecutor}
 * answering {@code execute}: the JobManager and the TaskManagers run a job's program as a client
 * would, as Flink's {@code JarRunHandler} runs a {@code PackagedProgram} of {@code flink-clients}.
 *
 * <p>May use {@code rpc} (the secret's header, {@code HostPort}), {@code rest.messages} and
 * weir-runtime's local executor. Never {@code jobmanager}, {@code taskmanager} or {@code data}.
 */
package io.weir.cluster.client;
