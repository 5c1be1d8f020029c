package io.weir.cluster.ha;

import io.weir.api.config.Configuration;
import io.weir.cluster.rpc.JarStore;
import io.weir.runtime.storage.FileSystem;
import io.weir.runtime.storage.FileSystems;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;

/**
 * The submitted jobs that a new leader runs again (Flink's {@code JobGraphStore}). The bytes go to
 * the storage directory, {@code <storageDir>/<cluster-id>/}: each jar once, by its content hash
 * ({@code jars/<sha-256>.jar}), and each job's program and settings ({@code
 * submitted-jobs/<job-id>.json}); ZooKeeper holds a pointer per job ({@code
 * /jobs/<job-id>/submitted}), written conditional on the leader's epoch and only once the bytes are
 * complete.
 *
 * <p>Thread-safe; blocks while the storage and ZooKeeper answer.
 */
public final class SubmittedJobStore {

  /**
   * What a job's pointer znode holds.
   *
   * @param jobId the job
   * @param location the URI of its {@code submitted-jobs/<job-id>.json}
   * @param jarId its jar's content hash
   * @param epoch the epoch of the leader that accepted it
   * @param writeId tells this write from any other, for reading back an ambiguous one
   */
  public record Pointer(String jobId, String location, String jarId, long epoch, String writeId) {}

  private final CuratorFramework client;
  private final FencedWrites writes;
  private final FileSystem fs;
  private final String dir;
  private final String dirUri;

  SubmittedJobStore(
      CuratorFramework client, FencedWrites writes, String clusterDir, Configuration fsConf) {
    this.client = client;
    this.writes = writes;
    URI uri = FileSystems.toUri(clusterDir);
    this.fs = FileSystems.get(uri, fsConf);
    this.dir = FileSystems.pathOf(uri);
    this.dirUri = clusterDir;
  }

  /**
   * Keeps {@code job} with its jar, read from {@code jar}, for the leader of {@code epoch}.
   *
   * @throws IllegalArgumentException if the jar's content does not hash to the job's jar id
   * @throws FencedException if a newer leader took over: the job is not recorded
   * @throws HighAvailabilityException if the job was recorded already
   * @throws IOException naming the file, if the storage directory cannot be written
   */
  public void put(LeaderEpoch epoch, SubmittedJob job, Path jar) throws IOException {
    storeJar(job.jarId(), jar);
    String location = dir + "/submitted-jobs/" + job.jobId() + ".json";
    fs.mkdirs(dir + "/submitted-jobs");
    try (OutputStream out = fs.create(location, true)) {
      out.write(ZNodeJson.write(job));
    }
    String writeId = UUID.randomUUID().toString();
    Pointer pointer =
        new Pointer(
            job.jobId(), fs.toUri(location).toString(), job.jarId(), epoch.value(), writeId);
    String path = ZNodes.submitted(job.jobId());
    try {
      createParent(ZNodes.job(job.jobId()));
      writes.commit(
          epoch,
          List.of(client.transactionOp().create().forPath(path, ZNodeJson.write(pointer))),
          () -> isOurs(path, writeId),
          "Recording the submission of job " + job.jobId());
    } catch (HighAvailabilityException e) {
      throw e;
    } catch (Exception e) {
      throw new HighAvailabilityException(
          "Cannot record the submission of job " + job.jobId() + ": " + e, e);
    }
  }

  /** The jobs recorded, by id. */
  public List<String> jobIds() {
    List<String> ids = new ArrayList<>();
    try {
      for (String id : client.getChildren().forPath(ZNodes.JOBS)) {
        if (client.checkExists().forPath(ZNodes.submitted(id)) != null) {
          ids.add(id);
        }
      }
    } catch (KeeperException.NoNodeException e) {
      return List.of();
    } catch (Exception e) {
      throw new HighAvailabilityException("Cannot list the submitted jobs: " + e, e);
    }
    return ids;
  }

  /**
   * The job recorded as {@code jobId}, or empty when none is.
   *
   * @throws IOException naming the file, if its pointer leads nowhere
   */
  public Optional<SubmittedJob> get(String jobId) throws IOException {
    String path = ZNodes.submitted(jobId);
    Pointer pointer;
    try {
      pointer = ZNodeJson.read(client.getData().forPath(path), Pointer.class, path);
    } catch (KeeperException.NoNodeException e) {
      return Optional.empty();
    } catch (HighAvailabilityException e) {
      throw e;
    } catch (Exception e) {
      throw new HighAvailabilityException("Cannot read " + path + ": " + e, e);
    }
    String location = FileSystems.pathOf(FileSystems.toUri(pointer.location()));
    if (!fs.exists(location)) {
      throw new FileNotFoundException(
          "Job "
              + jobId
              + " is recorded in ZooKeeper, but its submission "
              + pointer.location()
              + " is gone from "
              + HighAvailabilityOptions.STORAGE_DIR.key()
              + ": was the directory changed or cleaned?");
    }
    try (InputStream in = fs.open(location)) {
      return Optional.of(ZNodeJson.read(in.readAllBytes(), SubmittedJob.class, pointer.location()));
    }
  }

  /**
   * Copies jar {@code jarId} from the storage directory into {@code local}, checking its hash.
   *
   * @throws FileNotFoundException if the storage directory does not hold it
   * @throws IOException if its content no longer hashes to {@code jarId}
   */
  public void restoreJar(String jarId, JarStore local) throws IOException {
    if (local.contains(jarId)) {
      return;
    }
    String path = jarPath(jarId);
    if (!fs.exists(path)) {
      throw new FileNotFoundException(
          "Jar "
              + jarId
              + " is not in "
              + dirUri
              + "/jars ("
              + HighAvailabilityOptions.STORAGE_DIR.key()
              + ")");
    }
    String stored;
    try (InputStream in = fs.open(path)) {
      stored = local.store(in, jarId + ".jar");
    }
    if (!stored.equals(jarId)) {
      throw new IOException(
          "The jar "
              + fs.toUri(path)
              + " no longer hashes to its name (it hashes to "
              + stored
              + ")");
    }
  }

  /**
   * Forgets job {@code jobId} (its result is recorded, its clean-up done): the pointer first, then
   * the submission's file. The jar stays: other jobs may use it.
   *
   * @throws FencedException if a newer leader took over: nothing is removed
   */
  public void remove(LeaderEpoch epoch, String jobId) throws IOException {
    String path = ZNodes.submitted(jobId);
    Pointer pointer;
    try {
      pointer = ZNodeJson.read(client.getData().forPath(path), Pointer.class, path);
      writes.commit(
          epoch,
          List.of(client.transactionOp().delete().forPath(path)),
          () -> client.checkExists().forPath(path) == null,
          "Removing the submission of job " + jobId);
    } catch (KeeperException.NoNodeException e) {
      return;
    } catch (HighAvailabilityException e) {
      throw e;
    } catch (Exception e) {
      throw new HighAvailabilityException("Cannot remove " + path + ": " + e, e);
    }
    fs.delete(FileSystems.pathOf(FileSystems.toUri(pointer.location())), false);
  }

  private void storeJar(String jarId, Path jar) throws IOException {
    String target = jarPath(jarId);
    if (fs.exists(target)) {
      return; // by content: the same bytes
    }
    fs.mkdirs(dir + "/jars");
    String tmp = target + ".inprogress-" + UUID.randomUUID();
    MessageDigest sha = JarStore.sha256();
    try (InputStream in = new DigestInputStream(Files.newInputStream(jar), sha);
        OutputStream out = fs.create(tmp, false)) {
      in.transferTo(out);
    } catch (IOException e) {
      fs.delete(tmp, false);
      throw e;
    }
    String actual = HexFormat.of().formatHex(sha.digest());
    if (!actual.equals(jarId)) {
      fs.delete(tmp, false);
      throw new IllegalArgumentException(
          "The jar " + jar + " hashes to " + actual + ", not to the job's jar id " + jarId);
    }
    fs.rename(tmp, target);
  }

  private String jarPath(String jarId) {
    if (!jarId.matches("[0-9a-f]{64}")) {
      throw new IllegalArgumentException("'" + jarId + "' is no jar id (64 hex digits)");
    }
    return dir + "/jars/" + jarId + ".jar";
  }

  private void createParent(String path) throws Exception {
    try {
      client.create().creatingParentsIfNeeded().forPath(path);
    } catch (KeeperException.NodeExistsException e) {
      // another record of the job made it
    }
  }

  private boolean isOurs(String path, String writeId) throws Exception {
    try {
      return writeId.equals(
          ZNodeJson.read(client.getData().forPath(path), Pointer.class, path).writeId());
    } catch (KeeperException.NoNodeException e) {
      return false;
    }
  }
}
