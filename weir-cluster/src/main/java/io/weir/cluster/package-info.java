/**
 * Weir's cluster: what spans the roles. The settings every process reads ({@link
 * io.weir.cluster.ClusterOptions}, Flink's keys), the status file scripts wait for ({@link
 * io.weir.cluster.StatusFile}), the process entry points ({@link io.weir.cluster.ClusterMain}) and
 * the two deployments that assemble the roles in one JVM: the local session cluster of {@code weir
 * run} and the {@link io.weir.cluster.MiniCluster} of the tests (see {@code docs/architecture.md},
 * "Deployments").
 *
 * <p>The roles live in sub-packages: {@code jobmanager}, {@code taskmanager}, {@code client},
 * {@code rest}, {@code rpc} (what both ends of the control plane share) and {@code data} (the data
 * plane). Every sub-package may read {@code ClusterOptions} and {@code StatusFile} here; only
 * {@code ClusterMain} and the in-JVM deployments reach into the roles.
 */
package io.weir.cluster;
