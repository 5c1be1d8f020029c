/**
 * The TaskManager process: registration with backoff and heartbeats ({@link
 * io.weir.cluster.taskmanager.JobManagerConnection}), its tasks while the leader is lost ({@link
 * io.weir.cluster.taskmanager.TaskHandover}), the control port the JobManager calls ({@link
 * io.weir.cluster.taskmanager.TaskManagerRpc}) and one {@link
 * io.weir.cluster.taskmanager.JobOnTaskManager} per job (its class loader, its plan rebuilt from
 * the job's program, an in-process {@code TaskExecutor} that reports back in order).
 *
 * <p>May use {@code rpc}, {@code data} (its data port), {@code client} (a job's program and class
 * loader) and the top-level settings. Never {@code jobmanager} or {@code rest}: it reaches the
 * JobManager only through the control plane.
 */
package io.weir.cluster.taskmanager;
