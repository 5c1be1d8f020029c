package io.weir.fs.hadoop;

import io.weir.api.config.Configuration;
import io.weir.runtime.storage.FileSystem;
import io.weir.runtime.storage.FileSystemFactory;
import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Makes the {@code hdfs://} file system, found by {@link io.weir.runtime.storage.FileSystems}
 * through {@link java.util.ServiceLoader}.
 *
 * <p>Hadoop's configuration is read as Hadoop tools read it: {@code core-site.xml} and {@code
 * hdfs-site.xml} from the class path, then from the directory named by {@code fs.hdfs.hadoopconf}
 * (Flink's key) or, without it, from {@code HADOOP_CONF_DIR} or {@code HADOOP_HOME/etc/hadoop};
 * last, every key {@code flink.hadoop.<key>}, then {@code weir.hadoop.<key>}, sets the Hadoop key
 * {@code <key>}, e.g. {@code flink.hadoop.dfs.replication: 2} (see {@link HdfsOptions}).
 */
public final class HdfsFileSystemFactory implements FileSystemFactory {

  @Override
  public String scheme() {
    return "hdfs";
  }

  @Override
  public List<String> configPrefixes() {
    List<String> prefixes = new ArrayList<>(HdfsOptions.HADOOP_KEY_PREFIXES);
    prefixes.add(HdfsOptions.HADOOP_CONF_DIR.key());
    return prefixes;
  }

  @Override
  public FileSystem create(URI uri, Configuration conf) throws IOException {
    if (uri.getAuthority() == null || uri.getAuthority().isEmpty()) {
      org.apache.hadoop.conf.Configuration hadoop = hadoopConfiguration(conf, System.getenv());
      String defaultFs = hadoop.get("fs.defaultFS", "");
      if (!defaultFs.startsWith("hdfs://")) {
        throw new IllegalArgumentException(
            uri
                + " names no name node, and the Hadoop configuration's fs.defaultFS is '"
                + defaultFs
                + "': give the name node, as in hdfs://namenode:8020/weir/checkpoints, or set"
                + " HADOOP_CONF_DIR (or "
                + HdfsOptions.HADOOP_CONF_DIR.key()
                + ") to the directory of a core-site.xml that sets fs.defaultFS");
      }
      return new HadoopFileSystem(URI.create(defaultFs), hadoop);
    }
    return new HadoopFileSystem(uri, hadoopConfiguration(conf, System.getenv()));
  }

  /** Hadoop's configuration for a job: site files, then the Weir keys that override them. */
  static org.apache.hadoop.conf.Configuration hadoopConfiguration(
      Configuration conf, Map<String, String> env) {
    org.apache.hadoop.conf.Configuration hadoop = new org.apache.hadoop.conf.Configuration();
    String dir = conf.get(HdfsOptions.HADOOP_CONF_DIR);
    if (dir == null) {
      dir = env.get("HADOOP_CONF_DIR");
    }
    if (dir == null && env.get("HADOOP_HOME") != null) {
      dir = env.get("HADOOP_HOME") + "/etc/hadoop";
    }
    if (dir != null) {
      for (String name : List.of("core-site.xml", "hdfs-site.xml")) {
        File file = new File(dir, name);
        if (file.isFile()) {
          hadoop.addResource(new org.apache.hadoop.fs.Path(file.toURI()));
        }
      }
    }
    for (String prefix : HdfsOptions.HADOOP_KEY_PREFIXES) {
      conf.toMap()
          .forEach(
              (key, value) -> {
                if (key.startsWith(prefix)) {
                  hadoop.set(key.substring(prefix.length()), value);
                }
              });
    }
    return hadoop;
  }
}
