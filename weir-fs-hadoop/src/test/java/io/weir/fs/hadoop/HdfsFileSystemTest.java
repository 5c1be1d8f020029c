package io.weir.fs.hadoop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.weir.api.config.Configuration;
import io.weir.runtime.storage.FileSystem;
import io.weir.runtime.storage.FileSystemContract;
import io.weir.runtime.storage.FileSystems;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.UUID;
import org.apache.hadoop.security.UserGroupInformation;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The file-system contract on a real HDFS, found through ServiceLoader by its scheme. */
class HdfsFileSystemTest extends FileSystemContract {

  static MiniHdfs hdfs;
  static FileSystem fs;

  @BeforeAll
  static void startHdfs() throws IOException {
    hdfs = MiniHdfs.start();
    fs = FileSystems.get(hdfs.uri().resolve("/"), new Configuration());
  }

  @AfterAll
  static void stopHdfs() {
    FileSystems.closeAll();
    if (hdfs != null) {
      hdfs.close();
    }
  }

  @Override
  protected FileSystem fs() {
    return fs;
  }

  @Override
  protected String newDirectory() {
    return "/contract/" + UUID.randomUUID();
  }

  @Test
  void theHdfsSchemeIsServedByThisModule() {
    assertThat(fs).isInstanceOf(HadoopFileSystem.class);
    assertThat(fs.hasAtomicRename()).isTrue();
    assertThat(fs.toUri("/a/b")).isEqualTo(URI.create(hdfs.uri() + "/a/b"));
  }

  @Test
  void weirKeysReachHadoop() {
    Configuration conf =
        new Configuration()
            .setString("weir.hadoop.dfs.replication", "3")
            .setString("execution.checkpointing.interval", "1 s");
    org.apache.hadoop.conf.Configuration hadoop =
        HdfsFileSystemFactory.hadoopConfiguration(conf, java.util.Map.of());
    assertThat(hadoop.get("dfs.replication")).isEqualTo("3");
    assertThat(hadoop.get("execution.checkpointing.interval")).isNull();
  }

  @Test
  void flinksHadoopPrefixPassesKeysToHadoopAndWeirsWinsOverIt() {
    Configuration conf =
        new Configuration()
            .setString("flink.hadoop.dfs.blocksize", "8192")
            .setString("flink.hadoop.dfs.replication", "2")
            .setString("weir.hadoop.dfs.replication", "3");

    org.apache.hadoop.conf.Configuration hadoop =
        HdfsFileSystemFactory.hadoopConfiguration(conf, java.util.Map.of());

    assertThat(hadoop.get("dfs.blocksize")).isEqualTo("8192");
    assertThat(hadoop.get("dfs.replication")).isEqualTo("3");
  }

  @Test
  void aUriWithoutNameNodeUsesTheDefaultFromTheHadoopConfDirectory(@TempDir Path confDir)
      throws Exception {
    Files.writeString(
        confDir.resolve("core-site.xml"),
        "<configuration><property><name>fs.defaultFS</name><value>"
            + hdfs.uri()
            + "</value></property></configuration>");
    Configuration conf = new Configuration().setString("fs.hdfs.hadoopconf", confDir.toString());
    FileSystem viaDefault = new HdfsFileSystemFactory().create(URI.create("hdfs:///x"), conf);
    try {
      String dir = newDirectory();
      viaDefault.mkdirs(dir);
      assertThat(fs.exists(dir)).as("made through fs.defaultFS, seen directly").isTrue();
      assertThat(viaDefault.toUri(dir)).isEqualTo(URI.create(hdfs.uri() + dir));
    } finally {
      ((AutoCloseable) viaDefault).close();
    }
  }

  @Test
  void siteFilesComeFromHadoopConfDirOrHadoopHomeAndWeirKeysWin(@TempDir Path home)
      throws IOException {
    Path etc = Files.createDirectories(home.resolve("etc/hadoop"));
    Files.writeString(
        etc.resolve("hdfs-site.xml"),
        "<configuration><property><name>dfs.replication</name><value>2</value></property>"
            + "<property><name>dfs.blocksize</name><value>4096</value></property>"
            + "</configuration>");
    assertThat(
            HdfsFileSystemFactory.hadoopConfiguration(
                    new Configuration(), java.util.Map.of("HADOOP_CONF_DIR", etc.toString()))
                .get("dfs.replication"))
        .isEqualTo("2");
    org.apache.hadoop.conf.Configuration fromHome =
        HdfsFileSystemFactory.hadoopConfiguration(
            new Configuration().setString("weir.hadoop.dfs.replication", "3"),
            java.util.Map.of("HADOOP_HOME", home.toString()));
    assertThat(fromHome.get("dfs.blocksize")).isEqualTo("4096");
    assertThat(fromHome.get("dfs.replication")).isEqualTo("3");
  }

  @Test
  void aDirectoryTheUserMayNotWriteToIsNamed() throws Exception {
    String locked = newDirectory() + "/locked";
    String open = newDirectory() + "/open";
    fs.mkdirs(locked);
    fs.mkdirs(open);
    org.apache.hadoop.conf.Configuration hadoop = new org.apache.hadoop.conf.Configuration();
    try (org.apache.hadoop.fs.FileSystem admin =
        org.apache.hadoop.fs.FileSystem.newInstance(hdfs.uri(), hadoop)) {
      admin.setPermission(
          new org.apache.hadoop.fs.Path(locked),
          new org.apache.hadoop.fs.permission.FsPermission((short) 0555));
      admin.setPermission(
          new org.apache.hadoop.fs.Path(open),
          new org.apache.hadoop.fs.permission.FsPermission((short) 0777));
    }
    UserGroupInformation alice = UserGroupInformation.createRemoteUser("alice");
    HadoopFileSystem asAlice =
        alice.doAs(
            (java.security.PrivilegedExceptionAction<HadoopFileSystem>)
                () -> new HadoopFileSystem(hdfs.uri(), hadoop));
    try {
      assertThatThrownBy(
              () ->
                  alice.doAs(
                      (java.security.PrivilegedExceptionAction<Void>)
                          () -> {
                            asAlice.checkAccess(locked + "/checkpoints");
                            return null;
                          }))
          .isInstanceOf(IOException.class)
          .hasMessageContaining("alice may not write to " + hdfs.uri() + locked)
          .hasMessageContaining(hdfs.uri() + locked + "/checkpoints");
      alice.doAs(
          (java.security.PrivilegedExceptionAction<Void>)
              () -> {
                asAlice.checkAccess(open + "/checkpoints");
                return null;
              });
    } finally {
      asAlice.close();
    }
  }

  @Test
  void aDownNameNodeIsNamedWithItsUri() throws IOException {
    int port;
    try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      port = socket.getLocalPort();
    }
    URI down = URI.create("hdfs://127.0.0.1:" + port + "/weir/checkpoints");
    Configuration conf =
        new Configuration().setString("weir.hadoop.ipc.client.connect.max.retries", "0");
    assertThatThrownBy(() -> FileSystems.checkAccess(down, conf))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(down.toString())
        .hasMessageContaining("name node")
        .hasMessageContaining("127.0.0.1:" + port);
  }

  @Test
  void aUriWithoutNameNodeAndNoDefaultIsRefusedNamingTheUri() {
    URI uri = URI.create("hdfs:///weir/checkpoints");
    assertThatThrownBy(() -> FileSystems.get(uri, new Configuration()))
        .hasMessageContaining("hdfs:///weir/checkpoints")
        .hasMessageContaining("HADOOP_CONF_DIR");
  }
}
