/**
 * The data plane: records between subtasks on different TaskManagers over Netty, with credit-based
 * flow control (see {@code docs/cluster.md}, "The data plane"). A TaskManager's data port accepts
 * consumers' connections and serves its producers' ends ({@link
 * io.weir.cluster.data.DataPlaneServer}); its consumers open one connection per producing
 * TaskManager ({@link io.weir.cluster.data.DataPlaneClient}); {@link
 * io.weir.cluster.data.NettyDataPlane} is the runtime's {@code DataPlane} over both.
 *
 * <p>May use weir-runtime, {@code rpc} (the shared secret) and the top-level settings; never a
 * role's package.
 */
package io.weir.cluster.data;
