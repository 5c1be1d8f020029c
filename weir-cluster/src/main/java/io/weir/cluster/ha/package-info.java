/**
 * High availability on ZooKeeper (Curator): the services a JobManager and its TaskManagers build
 * failover on. {@link io.weir.cluster.ha.ZooKeeperHaServices} connects and makes them: leader
 * election with fencing epochs ({@link io.weir.cluster.ha.LeaderElection}) and its retrieval
 * ({@link io.weir.cluster.ha.LeaderRetrieval}), per job the checkpoint id counter and the
 * completed-checkpoint store, the submitted jobs and the jobs' results. Only pointers and counters
 * live in ZooKeeper ({@link io.weir.cluster.ha.ZNodes}); bytes live in checkpoint storage and in
 * {@code high-availability.storageDir}. Every write of a leader is conditional on its epoch.
 *
 * <p>Depends on weir-runtime (the checkpoint interfaces, storage) and {@code rpc.JarStore}; no
 * other package of weir-cluster uses it yet.
 */
package io.weir.cluster.ha;
