package io.weir.cluster;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A JobManager and one TaskManager in this JVM, on 127.0.0.1, for {@code weir run} without {@code
 * --jobmanager}: the job runs in the command's own process, as on Flink's local executor, and the
 * JobManager's REST API is served while it runs, so that {@code weir list}, {@code cancel}, {@code
 * savepoint} and {@code stop} work against it.
 */
public final class EmbeddedCluster implements AutoCloseable {

  /** Slots of the embedded TaskManager: one attempt of any job fits. */
  private static final int SLOTS = 1024;

  private final JobManager jobManager;
  private final TaskManager taskManager;

  /**
   * Starts both; {@code settings} may set {@code rest.port} (default: any free port) and any other
   * cluster setting.
   */
  public EmbeddedCluster(Map<String, String> settings) throws IOException, InterruptedException {
    Map<String, String> values = new LinkedHashMap<>();
    values.put(ClusterOptions.JM_PORT, "0");
    values.put(ClusterOptions.REST_PORT, "0");
    values.put(ClusterOptions.SLOTS, String.valueOf(SLOTS));
    values.putAll(settings);
    ClusterOptions options = ClusterOptions.of(values);
    this.jobManager = new JobManager(options);
    try {
      this.taskManager =
          new TaskManager(
              options,
              "127.0.0.1",
              jobManager.rpcPort(),
              reason -> {
                throw new IllegalStateException(reason);
              });
    } catch (IOException | RuntimeException e) {
      jobManager.close();
      throw e;
    }
  }

  /** The REST port the commands reach the embedded JobManager at. */
  public int restPort() {
    return jobManager.restPort();
  }

  @Override
  public void close() throws InterruptedException {
    try {
      taskManager.close();
    } finally {
      jobManager.close();
    }
  }
}
