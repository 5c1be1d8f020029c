package io.weir.fs.hadoop;

import io.weir.api.config.ConfigOption;
import io.weir.api.config.ConfigOptionProvider;
import io.weir.api.config.ConfigOptions;
import java.util.Collection;
import java.util.List;

/**
 * The keys of HDFS checkpoint storage, in the one registry of keys (through {@link Provider}).
 * Hadoop's own settings pass through with a prefix ({@link #HADOOP_KEY_PREFIXES}) instead of being
 * declared one by one.
 */
public final class HdfsOptions {

  private HdfsOptions() {}

  /** A directory holding {@code core-site.xml} and {@code hdfs-site.xml} (Flink's key). */
  public static final ConfigOption<String> HADOOP_CONF_DIR =
      ConfigOptions.key("fs.hdfs.hadoopconf")
          .stringType()
          .noDefaultValue()
          .withDescription(
              "Directory of core-site.xml and hdfs-site.xml; unset: HADOOP_CONF_DIR, or"
                  + " HADOOP_HOME/etc/hadoop.");

  /**
   * Keys with one of these prefixes are passed to Hadoop without it: Weir's, and Flink's {@code
   * flink.hadoop.} (e.g. {@code flink.hadoop.dfs.replication: 2}); Weir's wins where both set one.
   */
  public static final List<String> HADOOP_KEY_PREFIXES = List.of("flink.hadoop.", "weir.hadoop.");

  /** Makes the HDFS keys known to the registry. */
  public static final class Provider implements ConfigOptionProvider {
    @Override
    public String module() {
      return "weir-fs-hadoop";
    }

    @Override
    public Collection<ConfigOption<?>> options() {
      return ConfigOptionProvider.declaredIn(HdfsOptions.class);
    }
  }
}
