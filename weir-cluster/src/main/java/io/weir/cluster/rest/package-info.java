/**
 * The JobManager's REST API on Netty, with Flink's paths and field names: {@link
 * io.weir.cluster.rest.RestServer} (HTTP, the secret, errors as {@code {"errors": [...]}}), a
 * {@link io.weir.cluster.rest.Router} of {@link io.weir.cluster.rest.RestHandler}s, each declaring
 * its method and path template, and the replies and requests as records in {@code rest.messages},
 * which {@code ClusterClient} reads too.
 *
 * <p>The handlers ({@code rest.handlers}) are the one place outside {@code jobmanager} that uses
 * the JobManager's internals: they read its {@code Dispatcher} (jobs, jars) and {@code
 * TaskManagerRegistry}. The server, the router and the messages use neither; {@code rest.messages}
 * uses nothing of the cluster at all.
 */
package io.weir.cluster.rest;
