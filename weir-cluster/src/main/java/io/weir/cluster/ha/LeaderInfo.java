package io.weir.cluster.ha;

/**
 * The leading JobManager, as it publishes itself in ZooKeeper and as TaskManagers and clients learn
 * it: where to reach it and the epoch of its leadership.
 *
 * @param epoch the leader's fencing epoch: strictly greater than every earlier leader's; a
 *     TaskManager ignores calls of a smaller one
 * @param rpcAddress its control port, {@code host:port}
 * @param restAddress its REST endpoint, {@code http://host:port}
 * @param contenderId the JobManager process that leads (for logs)
 */
public record LeaderInfo(long epoch, String rpcAddress, String restAddress, String contenderId) {}
