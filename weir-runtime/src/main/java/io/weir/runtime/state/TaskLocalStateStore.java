package io.weir.runtime.state;

import io.weir.api.config.CheckpointingOptions;
import io.weir.api.config.Configuration;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The local copies of one subtask's snapshots on this process's disk, for task-local recovery
 * (Flink's {@code TaskLocalStateStore}): a state backend writes a copy of its snapshot here beside
 * the one it uploads, and a restore of the same subtask in this process reads the copy instead of
 * the checkpoint storage, once the backend has verified it against the checkpoint's handles. One
 * store per (job, vertex, subtask), kept by the task executor across the job's attempts and deleted
 * with the job. Layout:
 *
 * <pre>
 * &lt;root&gt;/job_&lt;job id&gt;/vtx_&lt;vertex&gt;_sti_&lt;subtask&gt;/chk_&lt;checkpoint id&gt;/&lt;operator id&gt;/...
 * </pre>
 *
 * The store keeps at most the copies of the newest completed checkpoint and of the ones taken after
 * it: a completed checkpoint deletes the older copies, an aborted one its own, and a restore every
 * copy but the one of the checkpoint restored.
 *
 * <p>Thread-safe: snapshot threads create copies, the task thread restores from them, the task
 * executor's caller thread confirms and aborts checkpoints and deletes the job's directory. What is
 * inside one operator's directory belongs to the backend that wrote it.
 */
public final class TaskLocalStateStore {

  private static final Logger LOG = LoggerFactory.getLogger(TaskLocalStateStore.class);

  private static final String CHECKPOINT_PREFIX = "chk_";

  private final Path directory;
  private final boolean restoreFromLocal;

  private TaskLocalStateStore(Path directory, boolean restoreFromLocal) {
    this.directory = directory;
    this.restoreFromLocal = restoreFromLocal;
  }

  /**
   * The store of subtask {@code subtask} of vertex {@code vertex} of job {@code jobId}, or null
   * when the job keeps no local copies ({@link CheckpointingOptions#localBackup}).
   */
  public static TaskLocalStateStore create(
      Configuration conf, String jobId, int vertex, int subtask) {
    if (!CheckpointingOptions.localBackup(conf)) {
      return null;
    }
    List<Path> roots = roots(conf);
    Path root = roots.get(Math.floorMod(subtask + vertex, roots.size()));
    return new TaskLocalStateStore(
        jobDirectory(root, jobId).resolve("vtx_" + vertex + "_sti_" + subtask),
        conf.get(CheckpointingOptions.LOCAL_RECOVERY));
  }

  /** Deletes every local copy of job {@code jobId} in this process: the job ended here. */
  public static void discardJob(Configuration conf, String jobId) {
    if (!CheckpointingOptions.localBackup(conf)) {
      return;
    }
    for (Path root : roots(conf)) {
      delete(jobDirectory(root, jobId));
    }
  }

  /** The configured root directories, or {@code <java.io.tmpdir>/weir-localState}. */
  static List<Path> roots(Configuration conf) {
    String configured = conf.get(CheckpointingOptions.LOCAL_BACKUP_DIRECTORIES);
    List<Path> roots = new ArrayList<>();
    if (configured != null) {
      for (String p : configured.split("[," + File.pathSeparator + "]")) {
        if (!p.isBlank()) {
          roots.add(Path.of(p.trim()));
        }
      }
    }
    if (roots.isEmpty()) {
      roots.add(Path.of(System.getProperty("java.io.tmpdir"), "weir-localState"));
    }
    return roots;
  }

  private static Path jobDirectory(Path root, String jobId) {
    return root.resolve("job_" + jobId.replaceAll("[^A-Za-z0-9_.-]", "_"));
  }

  /** The subtask's directory. */
  public Path directory() {
    return directory;
  }

  /**
   * Whether a restore may use the copies ({@code execution.state-recovery.from-local}); when false
   * they are only kept.
   */
  public boolean restoresFromLocal() {
    return restoreFromLocal;
  }

  /**
   * Where the copy of operator {@code operatorId}'s snapshot for checkpoint {@code checkpointId}
   * goes: its parent exists, the directory itself does not (what was there is deleted).
   */
  public synchronized Path newSnapshotDirectory(long checkpointId, String operatorId)
      throws IOException {
    Path dir = snapshotDirectory(checkpointId, operatorId);
    delete(dir);
    Files.createDirectories(dir.getParent());
    return dir;
  }

  /**
   * The copy of operator {@code operatorId}'s snapshot for checkpoint {@code checkpointId} when it
   * exists and restores may use it, else null. The backend still verifies it before use.
   */
  public synchronized Path snapshotForRestore(long checkpointId, String operatorId) {
    Path dir = snapshotDirectory(checkpointId, operatorId);
    return restoreFromLocal && Files.isDirectory(dir) ? dir : null;
  }

  /** Deletes one operator's copy: it failed, or is found unusable. */
  public synchronized void discardSnapshot(long checkpointId, String operatorId) {
    delete(snapshotDirectory(checkpointId, operatorId));
  }

  /**
   * Checkpoint {@code checkpointId} completed: the copies of older ones are subsumed, once it has a
   * copy here. A savepoint has none (it is written in its own format to its own directory), and
   * neither has a checkpoint whose copy could not be written: the newest copy here stays, since a
   * restore of a retained checkpoint may still want it.
   */
  public synchronized void confirmCheckpoint(long checkpointId) {
    if (!checkpoints().contains(checkpointId)) {
      return;
    }
    deleteCheckpoints(id -> id < checkpointId);
  }

  /** Checkpoint {@code checkpointId} was aborted: its copies are of no use. */
  public synchronized void abortCheckpoint(long checkpointId) {
    deleteCheckpoints(id -> id == checkpointId);
  }

  /**
   * The subtask restarts from checkpoint {@code checkpointId} (-1: from nothing): every other copy
   * is either subsumed or of a checkpoint that never completed.
   */
  public synchronized void retainOnly(long checkpointId) {
    deleteCheckpoints(id -> id != checkpointId);
  }

  /** The checkpoint ids that have a copy here, in ascending order; for tests and logs. */
  public synchronized List<Long> checkpoints() {
    List<Long> ids = new ArrayList<>();
    if (!Files.isDirectory(directory)) {
      return ids;
    }
    try (Stream<Path> dirs = Files.list(directory)) {
      dirs.map(TaskLocalStateStore::checkpointIdOf)
          .filter(id -> id >= 0)
          .sorted()
          .forEach(ids::add);
    } catch (IOException | UncheckedIOException e) {
      LOG.warn("Cannot list the local copies of snapshots in {}", directory, e);
    }
    return ids;
  }

  private Path snapshotDirectory(long checkpointId, String operatorId) {
    return directory
        .resolve(CHECKPOINT_PREFIX + checkpointId)
        .resolve(operatorId.replaceAll("[^A-Za-z0-9_.-]", "_"));
  }

  private void deleteCheckpoints(java.util.function.LongPredicate which) {
    for (long id : checkpoints()) {
      if (which.test(id)) {
        delete(directory.resolve(CHECKPOINT_PREFIX + id));
      }
    }
  }

  private static long checkpointIdOf(Path dir) {
    String name = dir.getFileName().toString();
    if (!name.startsWith(CHECKPOINT_PREFIX)) {
      return -1;
    }
    try {
      return Long.parseLong(name.substring(CHECKPOINT_PREFIX.length()));
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  /** Deletes a directory and everything in it, logging what it cannot delete. */
  private static void delete(Path dir) {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException | UncheckedIOException e) {
      LOG.warn("Could not delete the local copy of snapshots {}", dir, e);
    }
    if (Files.exists(dir)) {
      LOG.warn("Could not delete the local copy of snapshots {}; delete it by hand", dir);
    }
  }

  @Override
  public String toString() {
    return "TaskLocalStateStore{" + directory + "}";
  }
}
