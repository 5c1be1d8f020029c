package io.weir.fs.hadoop;

import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.MiniDFSCluster;

/** A real HDFS (name node and one data node) in this JVM on 127.0.0.1; one per test class. */
final class MiniHdfs implements AutoCloseable {

  private final MiniDFSCluster cluster;

  private MiniHdfs(MiniDFSCluster cluster) {
    this.cluster = cluster;
  }

  static MiniHdfs start() throws IOException {
    Path base = Files.createTempDirectory(Path.of(System.getProperty("java.io.tmpdir")), "hdfs-");
    Configuration conf = new Configuration();
    conf.set(MiniDFSCluster.HDFS_MINIDFS_BASEDIR, base.toString());
    conf.set("dfs.namenode.rpc-address", "127.0.0.1:0");
    conf.set("dfs.namenode.http-address", "127.0.0.1:0");
    conf.set("dfs.datanode.address", "127.0.0.1:0");
    conf.set("dfs.datanode.http.address", "127.0.0.1:0");
    conf.set("dfs.datanode.ipc.address", "127.0.0.1:0");
    conf.setInt("dfs.replication", 1);
    conf.setLong("dfs.blocksize", 1024 * 1024);
    conf.setInt("dfs.namenode.fs-limits.min-block-size", 1024);
    MiniDFSCluster cluster =
        new MiniDFSCluster.Builder(conf, new File(base.toString()))
            .numDataNodes(1)
            .format(true)
            .build();
    cluster.waitActive();
    return new MiniHdfs(cluster);
  }

  /** {@code hdfs://127.0.0.1:<port>}. */
  URI uri() {
    return URI.create("hdfs://127.0.0.1:" + cluster.getNameNodePort());
  }

  /** Puts HDFS in (or out of) safe mode, where the name node refuses every write. */
  void safeMode(boolean on) throws IOException {
    cluster
        .getFileSystem()
        .setSafeMode(
            on
                ? org.apache.hadoop.hdfs.protocol.HdfsConstants.SafeModeAction.SAFEMODE_ENTER
                : org.apache.hadoop.hdfs.protocol.HdfsConstants.SafeModeAction.SAFEMODE_LEAVE);
  }

  /** Stops the name node: clients cannot reach HDFS until {@link #restartNameNode}. */
  void stopNameNode() {
    cluster.shutdownNameNode(0);
  }

  /** Starts the name node again on its port and waits until HDFS takes writes. */
  void restartNameNode() throws IOException {
    cluster.restartNameNode(0, true);
    cluster.waitActive();
  }

  @Override
  public void close() {
    cluster.shutdown(true);
  }
}
