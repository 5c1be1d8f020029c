/**
 * What both ends of the control plane share: the protocol (generated here from {@code
 * weir_cluster.proto}), gRPC's Netty builders on the shared allocator ({@link
 * io.weir.cluster.rpc.ControlPlane}), conversions between runtime values and messages ({@link
 * io.weir.cluster.rpc.Messages}), the shared secret ({@link io.weir.cluster.rpc.Secrets}, also on
 * the data plane and the REST API), job jars by content hash ({@link io.weir.cluster.rpc.JarStore},
 * kept by the JobManager and fetched by TaskManagers), addresses ({@link
 * io.weir.cluster.rpc.HostPort}) and error messages of a cause chain ({@link
 * io.weir.cluster.rpc.WeirMessages}).
 *
 * <p>May use weir-runtime and the top-level settings; never a role's package.
 */
package io.weir.cluster.rpc;
