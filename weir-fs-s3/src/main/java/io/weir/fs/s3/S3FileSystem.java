package io.weir.fs.s3;

import io.weir.runtime.storage.FileSystem;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.FileAlreadyExistsException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import org.apache.http.conn.DnsResolver;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.CommonPrefix;
import software.amazon.awssdk.services.s3.model.Delete;
import software.amazon.awssdk.services.s3.model.DeleteObjectsResponse;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Request;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Response;
import software.amazon.awssdk.services.s3.model.NoSuchBucketException;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.ObjectIdentifier;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * One S3 bucket as a {@link FileSystem}, on the AWS SDK v2. A path {@code /a/b} is the key {@code
 * a/b}; a directory is a key prefix, and an empty directory made by {@link #mkdirs} is a marker
 * object {@code a/b/}.
 *
 * <p>There is no rename ({@link #hasAtomicRename} is false): a new object becomes visible only once
 * its stream has closed and its upload completed, so checkpoint storage writes {@code _metadata}
 * last and directly. Files larger than a part ({@code s3.upload.min.part.size}) go up as multipart
 * uploads, one part in memory at a time per stream; at most {@code
 * s3.upload.max.concurrent.uploads} write requests are in flight at once across the file system.
 * Requests are retried with exponential backoff and jitter up to {@code s3.attempts.maximum}
 * attempts, throttling ({@code 503 SlowDown}) and unreachable endpoints included. Recursive deletes
 * list the prefix and delete in batches of 1000 keys (DeleteObjects).
 *
 * <p>Entropy injection ({@code s3.entropy.key}, {@code s3.entropy.length}, as in Flink): in a path
 * that holds the marker segment, a state file's key has the marker replaced by characters derived
 * from its directory, so the files of different jobs and checkpoints spread over many key prefixes;
 * {@code _metadata} files and directory markers have the marker removed, so a checkpoint's metadata
 * is at a key a user can predict. Flink draws the characters at random per file and keeps the
 * resulting path in the state handle; Weir's handles are relative to the job directory, so the
 * characters are a hash of the directory instead: the same path always maps to the same key, and
 * one directory's files share one prefix and can be listed with one request.
 *
 * <p>Thread-safe.
 */
final class S3FileSystem implements FileSystem, AutoCloseable {

  private final String scheme;
  private final String bucket;
  private final S3Settings settings;
  private final S3Keys layout;
  private final S3Client client;
  private final S3Failures failures;
  private final Semaphore uploads;

  /** Directories whose marker this instance wrote (entropy paths only), to write each once. */
  private final Set<String> markedDirectories = ConcurrentHashMap.newKeySet();

  S3FileSystem(String scheme, String bucket, S3Settings settings, DnsResolver dnsResolver) {
    if (bucket == null || bucket.isEmpty()) {
      throw new IllegalArgumentException(
          "An " + scheme + ":// URI needs a bucket, as in " + scheme + "://my-bucket/checkpoints");
    }
    this.scheme = scheme;
    this.bucket = bucket;
    this.settings = settings;
    this.layout = new S3Keys(settings.entropyKey(), settings.entropyLength());
    this.uploads = new Semaphore(settings.maxConcurrentUploads());
    this.client = S3Clients.create(settings, dnsResolver);
    this.failures = new S3Failures(scheme, bucket, settings);
  }

  // ---- FileSystem

  @Override
  public OutputStream create(String path, boolean overwrite) throws IOException {
    String key = layout.fileKey(path);
    if (!overwrite && objectExists(key)) {
      throw new FileAlreadyExistsException(toUri(path).toString());
    }
    String parent = S3Keys.parentOf(path);
    if (layout.hasEntropyMarker(path) && parent != null && markedDirectories.add(parent)) {
      // The file's key is under its directory's entropy prefix; the marker is what lists it.
      putEmpty(layout.directoryPrefix(parent));
    }
    return new S3OutputStream(this, key, toUri(path));
  }

  @Override
  public InputStream open(String path) throws IOException {
    String key = layout.fileKey(path);
    try {
      return client.getObject(b -> b.bucket(bucket).key(key));
    } catch (NoSuchKeyException e) {
      FileNotFoundException notFound = new FileNotFoundException(toUri(path) + " does not exist");
      notFound.initCause(e);
      throw notFound;
    } catch (SdkException e) {
      throw failures.of("read", key, e);
    }
  }

  /** A copy and a delete, not atomic: checkpoint storage does not rename on S3. */
  @Override
  public void rename(String from, String to) throws IOException {
    String source = layout.fileKey(from);
    String target = layout.fileKey(to);
    if (objectExists(target)) {
      throw new FileAlreadyExistsException(toUri(to).toString());
    }
    try {
      client.copyObject(
          b ->
              b.sourceBucket(bucket)
                  .sourceKey(source)
                  .destinationBucket(bucket)
                  .destinationKey(target));
    } catch (NoSuchKeyException e) {
      FileNotFoundException notFound = new FileNotFoundException(toUri(from) + " does not exist");
      notFound.initCause(e);
      throw notFound;
    } catch (S3Exception e) {
      if (e.statusCode() == 404) {
        FileNotFoundException notFound = new FileNotFoundException(toUri(from) + " does not exist");
        notFound.initCause(e);
        throw notFound;
      }
      throw failures.of("copy to " + target + " from", source, e);
    } catch (SdkException e) {
      throw failures.of("copy to " + target + " from", source, e);
    }
    deleteKeys(List.of(source));
  }

  @Override
  public boolean delete(String path, boolean recursive) throws IOException {
    String fileKey = layout.fileKey(path);
    if (objectExists(fileKey)) {
      deleteKeys(List.of(fileKey));
      return true;
    }
    String prefix = layout.directoryPrefix(path);
    List<String> keys = new ArrayList<>();
    Set<String> directories = new TreeSet<>();
    directories.add(path);
    for (S3Object object : listAll(prefix)) {
      keys.add(object.key());
      // Every directory below, for its entropy prefix.
      String rest = object.key().substring(prefix.length());
      for (int slash = rest.indexOf('/'); slash >= 0; slash = rest.indexOf('/', slash + 1)) {
        directories.add(path + "/" + rest.substring(0, slash));
      }
    }
    if (layout.hasEntropyMarker(path)) {
      for (String dir : directories) {
        String entropyPrefix = layout.entropyDirectoryPrefix(dir);
        for (S3Object object : listAll(entropyPrefix)) {
          keys.add(object.key());
        }
      }
    }
    if (keys.isEmpty()) {
      return false;
    }
    if (!recursive && keys.stream().anyMatch(k -> !k.equals(prefix))) {
      throw new IOException("Cannot delete " + toUri(path) + ": the directory is not empty");
    }
    deleteKeys(keys);
    markedDirectories.removeIf(d -> d.equals(path) || d.startsWith(path + "/"));
    return true;
  }

  /** DeleteObjects, {@code s3.bulk.delete.page.size} keys per request. */
  @Override
  public void deleteFiles(java.util.Collection<String> paths) throws IOException {
    List<String> keys = new ArrayList<>(paths.size());
    for (String path : paths) {
      keys.add(layout.fileKey(path));
    }
    if (!keys.isEmpty()) {
      deleteKeys(keys);
    }
  }

  @Override
  public List<String> list(String dir) throws IOException {
    Set<String> names = new TreeSet<>();
    boolean found = listNames(layout.directoryPrefix(dir), names);
    if (layout.hasEntropyMarker(dir)) {
      found |= listNames(layout.entropyDirectoryPrefix(dir), names);
    }
    if (!found) {
      throw new FileNotFoundException(toUri(dir) + " does not exist");
    }
    return List.copyOf(names);
  }

  /** One listing (per page) gives names and sizes: no request per object. */
  @Override
  public List<DirectoryEntry> listEntries(String dir) throws IOException {
    java.util.Map<String, DirectoryEntry> entries = new java.util.TreeMap<>();
    boolean found = listEntriesUnder(layout.directoryPrefix(dir), entries);
    if (layout.hasEntropyMarker(dir)) {
      found |= listEntriesUnder(layout.entropyDirectoryPrefix(dir), entries);
    }
    if (!found) {
      throw new FileNotFoundException(toUri(dir) + " does not exist");
    }
    return List.copyOf(entries.values());
  }

  private boolean listEntriesUnder(String prefix, java.util.Map<String, DirectoryEntry> entries)
      throws IOException {
    boolean found = false;
    ListObjectsV2Request request =
        ListObjectsV2Request.builder()
            .bucket(bucket)
            .prefix(prefix)
            .delimiter("/")
            .maxKeys(settings.pageSize())
            .build();
    try {
      for (ListObjectsV2Response page : client.listObjectsV2Paginator(request)) {
        for (CommonPrefix common : page.commonPrefixes()) {
          found = true;
          String name = common.prefix().substring(prefix.length());
          name = name.substring(0, name.length() - 1);
          entries.put(name, new DirectoryEntry(name, true, -1));
        }
        for (S3Object object : page.contents()) {
          found = true;
          String name = object.key().substring(prefix.length());
          if (!name.isEmpty()) {
            entries.putIfAbsent(name, new DirectoryEntry(name, false, object.size()));
          }
        }
      }
    } catch (NoSuchBucketException e) {
      throw new IOException(failures.noBucket(), e);
    } catch (SdkException e) {
      throw failures.of("list", prefix, e);
    }
    return found;
  }

  @Override
  public boolean exists(String path) throws IOException {
    if (objectExists(layout.fileKey(path))) {
      return true;
    }
    return anyKeyUnder(layout.directoryPrefix(path))
        || (layout.hasEntropyMarker(path) && anyKeyUnder(layout.entropyDirectoryPrefix(path)));
  }

  @Override
  public void mkdirs(String dir) throws IOException {
    putEmpty(layout.directoryPrefix(dir));
    markedDirectories.add(dir);
  }

  @Override
  public URI toUri(String path) {
    try {
      return new URI(scheme, bucket, path.startsWith("/") ? path : "/" + path, null, null);
    } catch (URISyntaxException e) {
      throw new IllegalArgumentException("Cannot turn S3 path " + path + " into a URI", e);
    }
  }

  @Override
  public boolean hasAtomicRename() {
    return false;
  }

  /** Asks for the bucket (HEAD): it must exist and the credentials must be good. */
  @Override
  public void checkAccess(String path) throws IOException {
    try {
      client.headBucket(b -> b.bucket(bucket));
    } catch (NoSuchBucketException e) {
      throw new IOException(failures.noBucket(), e);
    } catch (S3Exception e) {
      if (e.statusCode() == 404) {
        throw new IOException(failures.noBucket(), e);
      }
      if (e.statusCode() == 403 || e.statusCode() == 400) {
        throw new IOException(
            "the bucket '"
                + bucket
                + "' refused the credentials (HTTP "
                + e.statusCode()
                + "). Check "
                + S3Options.ACCESS_KEY.key()
                + " and "
                + S3Options.SECRET_KEY.key()
                + (settings.accessKey() == null
                    ? " (not set: the AWS default credential chain was used)"
                    : " (access key " + settings.accessKey() + ")")
                + " and that they may read and write the bucket",
            e);
      }
      throw failures.of("reach the bucket of", path, e);
    } catch (SdkException e) {
      throw failures.of("reach the bucket of", path, e);
    }
  }

  @Override
  public void close() {
    client.close();
  }

  @Override
  public String toString() {
    return "S3FileSystem[" + scheme + "://" + bucket + ", " + settings + "]";
  }

  // ---- requests

  S3Client client() {
    return client;
  }

  String bucket() {
    return bucket;
  }

  S3Settings settings() {
    return settings;
  }

  /** Runs a write request while holding one of the bounded upload permits. */
  <T> T upload(String key, java.util.function.Supplier<T> request) throws IOException {
    try {
      uploads.acquire();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("Interrupted waiting to upload " + uriOfKey(key));
    }
    try {
      return request.get();
    } catch (SdkException e) {
      throw failures.of("write", key, e);
    } finally {
      uploads.release();
    }
  }

  private void putEmpty(String key) throws IOException {
    upload(key, () -> client.putObject(b -> b.bucket(bucket).key(key), RequestBody.empty()));
  }

  private boolean objectExists(String key) throws IOException {
    if (key.isEmpty()) {
      return false;
    }
    try {
      client.headObject(b -> b.bucket(bucket).key(key));
      return true;
    } catch (NoSuchKeyException e) {
      return false;
    } catch (S3Exception e) {
      if (e.statusCode() == 404) {
        return false;
      }
      throw failures.of("look up", key, e);
    } catch (SdkException e) {
      throw failures.of("look up", key, e);
    }
  }

  private boolean anyKeyUnder(String prefix) throws IOException {
    try {
      return client.listObjectsV2(b -> b.bucket(bucket).prefix(prefix).maxKeys(1)).keyCount() > 0;
    } catch (SdkException e) {
      throw failures.of("list", prefix, e);
    }
  }

  /** Adds the names of the entries directly under {@code prefix}; true if there was any key. */
  private boolean listNames(String prefix, Set<String> names) throws IOException {
    boolean found = false;
    ListObjectsV2Request request =
        ListObjectsV2Request.builder()
            .bucket(bucket)
            .prefix(prefix)
            .delimiter("/")
            .maxKeys(settings.pageSize())
            .build();
    try {
      for (ListObjectsV2Response page : client.listObjectsV2Paginator(request)) {
        for (CommonPrefix common : page.commonPrefixes()) {
          found = true;
          String name = common.prefix().substring(prefix.length());
          names.add(name.substring(0, name.length() - 1));
        }
        for (S3Object object : page.contents()) {
          found = true;
          String name = object.key().substring(prefix.length());
          if (!name.isEmpty()) {
            names.add(name);
          }
        }
      }
    } catch (NoSuchBucketException e) {
      throw new IOException(failures.noBucket(), e);
    } catch (SdkException e) {
      throw failures.of("list", prefix, e);
    }
    return found;
  }

  /** Every object under {@code prefix}, however deep. */
  private List<S3Object> listAll(String prefix) throws IOException {
    List<S3Object> objects = new ArrayList<>();
    ListObjectsV2Request request =
        ListObjectsV2Request.builder()
            .bucket(bucket)
            .prefix(prefix)
            .maxKeys(settings.pageSize())
            .build();
    try {
      for (ListObjectsV2Response page : client.listObjectsV2Paginator(request)) {
        objects.addAll(page.contents());
      }
    } catch (SdkException e) {
      throw failures.of("list", prefix, e);
    }
    return objects;
  }

  /**
   * Deletes keys in batches of {@code s3.bulk.delete.page.size} (DeleteObjects), failing if S3
   * reports any key not deleted.
   */
  void deleteKeys(List<String> keys) throws IOException {
    for (int from = 0; from < keys.size(); from += settings.deletePageSize()) {
      List<ObjectIdentifier> batch =
          keys.subList(from, Math.min(keys.size(), from + settings.deletePageSize())).stream()
              .map(k -> ObjectIdentifier.builder().key(k).build())
              .toList();
      String first = batch.get(0).key();
      DeleteObjectsResponse response =
          upload(
              first,
              () ->
                  client.deleteObjects(
                      b ->
                          b.bucket(bucket)
                              .delete(Delete.builder().objects(batch).quiet(true).build())));
      if (response.hasErrors() && !response.errors().isEmpty()) {
        var error = response.errors().get(0);
        throw new IOException(
            "Could not delete "
                + response.errors().size()
                + " of "
                + batch.size()
                + " objects in "
                + scheme
                + "://"
                + bucket
                + ", such as "
                + error.key()
                + ": "
                + error.code()
                + " "
                + error.message());
      }
    }
  }

  URI uriOfKey(String key) {
    return URI.create(scheme + "://" + bucket + "/" + key);
  }
}
