/**
 * The JobManager process: the control port TaskManagers register at ({@link
 * io.weir.cluster.jobmanager.JobManagerRpc}), the jobs ({@link
 * io.weir.cluster.jobmanager.Dispatcher}: jars by content hash, a runtime {@code JobMaster} per
 * job), the TaskManagers and their slots ({@link io.weir.cluster.jobmanager.TaskManagerRegistry})
 * and a job master's {@code TaskExecutorGateway} over the control plane ({@link
 * io.weir.cluster.jobmanager.ClusterGateway}, with {@link
 * io.weir.cluster.jobmanager.SubmitTasksRequests} and, after a failover, {@link
 * io.weir.cluster.jobmanager.TaskOffers}).
 *
 * <p>May use {@code rpc}, {@code client} (a job's program and class loader, as the JobManager runs
 * its {@code main}), {@code rest} (it starts the {@code RestServer}) and the top-level settings.
 * Never {@code taskmanager} or {@code data}: it reaches TaskManagers only through the control
 * plane.
 */
package io.weir.cluster.jobmanager;
