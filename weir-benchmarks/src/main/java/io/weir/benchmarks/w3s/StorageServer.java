package io.weir.benchmarks.w3s;

import io.weir.benchmarks.TempDir;
import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.gaul.s3proxy.S3Proxy;
import org.gaul.s3proxy.auth.AuthenticationType;
import org.gaul.s3proxy.nio2blob.FilesystemNio2BlobStore;

/**
 * The helper JVM that serves W3S's checkpoint storage on 127.0.0.1, as weir-fs-hadoop's and
 * weir-fs-s3's tests do: an HDFS mini cluster (one name node, one data node, replication 1) or
 * s3proxy on a file-system blob store with V4 authentication, both under a fresh temporary
 * directory. Its class path is Weir's plus {@code target/classpath-storage.txt} (the servers are on
 * neither engine's class path).
 *
 * <p>Arguments: {@code <hdfs|s3>}. Prints {@code SETTING <key> <value>} for each setting a Weir job
 * needs to reach it ({@code execution.checkpointing.dir} among them), then {@code READY}; serves
 * until its standard input ends, then stops the server, deletes its files and exits.
 */
public final class StorageServer {
  static final String READY = "READY";
  static final String SETTING = "SETTING ";
  static final String BUCKET = "weir-bench";
  static final String ACCESS_KEY = "weir-bench-access";
  static final String SECRET_KEY = "weir-bench-secret-key";

  private StorageServer() {}

  public static void main(String[] args) throws Exception {
    Storage storage = Storage.ofId(args.length == 1 ? args[0] : "");
    int status = 0;
    try (TempDir dir = TempDir.create("weir-w3s-" + storage.id() + "-")) {
      AutoCloseable server;
      Map<String, String> settings = new LinkedHashMap<>();
      switch (storage) {
        case HDFS -> {
          MiniDFSCluster cluster = startHdfs(dir);
          server = () -> cluster.shutdown(true);
          settings.put(
              "execution.checkpointing.dir",
              "hdfs://127.0.0.1:" + cluster.getNameNodePort() + "/weir/checkpoints");
          settings.put("weir.hadoop.dfs.replication", "1");
        }
        case S3 -> {
          S3Proxy proxy = startS3(dir);
          server = proxy::stop;
          settings.put("execution.checkpointing.dir", "s3://" + BUCKET + "/checkpoints");
          settings.put("s3.endpoint", "http://127.0.0.1:" + proxy.getPort());
          settings.put("s3.path.style.access", "true");
          settings.put("s3.access-key", ACCESS_KEY);
          settings.put("s3.secret-key", SECRET_KEY);
        }
        default -> throw new IllegalArgumentException("Usage: StorageServer <hdfs|s3>");
      }
      try {
        settings.forEach((key, value) -> System.out.println(SETTING + key + " " + value));
        System.out.println(READY);
        System.out.flush();
        // Serve until the parent closes our standard input (or dies).
        while (System.in.read() >= 0) {
          // ignore
        }
      } finally {
        server.close();
      }
    } catch (Throwable t) { // any failure must end the helper
      t.printStackTrace();
      status = 1;
    }
    System.out.flush();
    System.exit(status);
  }

  private static MiniDFSCluster startHdfs(TempDir dir) throws IOException {
    Configuration conf = new Configuration();
    conf.set(MiniDFSCluster.HDFS_MINIDFS_BASEDIR, dir.path().toString());
    conf.set("dfs.namenode.rpc-address", "127.0.0.1:0");
    conf.set("dfs.namenode.http-address", "127.0.0.1:0");
    conf.set("dfs.datanode.address", "127.0.0.1:0");
    conf.set("dfs.datanode.http.address", "127.0.0.1:0");
    conf.set("dfs.datanode.ipc.address", "127.0.0.1:0");
    conf.setInt("dfs.replication", 1);
    MiniDFSCluster cluster =
        new MiniDFSCluster.Builder(conf, new File(dir.path().toString()))
            .numDataNodes(1)
            .format(true)
            .build();
    cluster.waitActive();
    return cluster;
  }

  private static S3Proxy startS3(TempDir dir) throws Exception {
    FilesystemNio2BlobStore store = new FilesystemNio2BlobStore(dir.path().toString());
    S3Proxy proxy =
        S3Proxy.builder()
            .blobStore(store)
            .endpoint(URI.create("http://127.0.0.1:0"))
            .awsAuthentication(AuthenticationType.AWS_V2_OR_V4, ACCESS_KEY, SECRET_KEY)
            .build();
    proxy.start();
    long deadline = System.nanoTime() + 60_000_000_000L;
    while (!proxy.getState().equals("STARTED")) {
      if (System.nanoTime() > deadline) {
        throw new IOException("s3proxy did not start within 60 s: " + proxy.getState());
      }
      Thread.sleep(20);
    }
    store.createContainer(BUCKET);
    return proxy;
  }
}
