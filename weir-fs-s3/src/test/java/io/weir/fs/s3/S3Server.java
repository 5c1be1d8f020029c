package io.weir.fs.s3;

import static org.awaitility.Awaitility.await;

import io.weir.api.config.Configuration;
import java.io.InputStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.gaul.s3proxy.S3Proxy;
import org.gaul.s3proxy.auth.AuthenticationType;
import org.gaul.s3proxy.blobstore.BlobStore;
import org.gaul.s3proxy.blobstore.ForwardingBlobStore;
import org.gaul.s3proxy.blobstore.domain.MultipartUpload;
import org.gaul.s3proxy.nio2blob.FilesystemNio2BlobStore;
import software.amazon.awssdk.awscore.exception.AwsErrorDetails;
import software.amazon.awssdk.core.ResponseInputStream;
import software.amazon.awssdk.http.SdkHttpResponse;
import software.amazon.awssdk.services.s3.model.CompleteMultipartUploadRequest;
import software.amazon.awssdk.services.s3.model.CompleteMultipartUploadResponse;
import software.amazon.awssdk.services.s3.model.CopyObjectRequest;
import software.amazon.awssdk.services.s3.model.CopyObjectResponse;
import software.amazon.awssdk.services.s3.model.CreateMultipartUploadRequest;
import software.amazon.awssdk.services.s3.model.DeleteObjectsRequest;
import software.amazon.awssdk.services.s3.model.DeleteObjectsResponse;
import software.amazon.awssdk.services.s3.model.DeletedObject;
import software.amazon.awssdk.services.s3.model.GetObjectRequest;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.HeadObjectRequest;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Request;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Response;
import software.amazon.awssdk.services.s3.model.ObjectIdentifier;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;
import software.amazon.awssdk.services.s3.model.PutObjectResponse;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.model.UploadPartRequest;
import software.amazon.awssdk.services.s3.model.UploadPartResponse;

/**
 * A real S3-compatible server (s3proxy on a file-system blob store under the build's temp dir) on
 * 127.0.0.1, with V4 authentication, and server-side faults a test can switch on: writes refused
 * (HTTP 500), every request throttled ({@code 503 SlowDown}) for a number of requests, or the
 * server stopped and started again on the same port. One per test class.
 */
final class S3Server implements AutoCloseable {

  static final String ACCESS_KEY = "weir-access";
  static final String SECRET_KEY = "weir-secret-key-for-tests";

  private final Path dir;
  private final FaultyBlobStore store;
  private final String virtualHost;
  private volatile S3Proxy proxy;
  private volatile int port;

  private S3Server(Path dir, String virtualHost) {
    this.dir = dir;
    this.virtualHost = virtualHost;
    this.store = new FaultyBlobStore(new FilesystemNio2BlobStore(dir.toString()));
  }

  static S3Server start(String... buckets) throws Exception {
    return startWithVirtualHost(null, buckets);
  }

  /** A server that also answers virtual-host-style requests for {@code <bucket>.<host>}. */
  static S3Server startWithVirtualHost(String virtualHost, String... buckets) throws Exception {
    Path dir = Files.createTempDirectory(Path.of(System.getProperty("java.io.tmpdir")), "s3-");
    S3Server server = new S3Server(dir, virtualHost);
    server.startProxy(0);
    for (String bucket : buckets) {
      server.store.createContainer(bucket);
    }
    return server;
  }

  private void startProxy(int onPort) throws Exception {
    S3Proxy.Builder builder =
        S3Proxy.builder()
            .blobStore(store)
            .endpoint(URI.create("http://127.0.0.1:" + onPort))
            .awsAuthentication(AuthenticationType.AWS_V2_OR_V4, ACCESS_KEY, SECRET_KEY)
            .jettyMaxThreads(24);
    if (virtualHost != null) {
      builder.virtualHost(virtualHost);
    }
    S3Proxy started = builder.build();
    started.start();
    await().atMost(Duration.ofSeconds(30)).until(() -> started.getState().equals("STARTED"));
    proxy = started;
    port = started.getPort();
  }

  /** {@code http://127.0.0.1:<port>}. */
  URI endpoint() {
    return URI.create("http://127.0.0.1:" + port);
  }

  int port() {
    return port;
  }

  /** The configuration that reaches this server, path style, with the right keys. */
  Configuration configuration() {
    return new Configuration()
        .setString("s3.endpoint", endpoint().toString())
        .setString("s3.path.style.access", "true")
        .setString("s3.access-key", ACCESS_KEY)
        .setString("s3.secret-key", SECRET_KEY);
  }

  FaultyBlobStore store() {
    return store;
  }

  /** Stops the server: connections are refused until {@link #restart}. */
  void stop() throws Exception {
    proxy.stop();
  }

  /** Starts the server again on the port it had, with the same objects. */
  void restart() throws Exception {
    startProxy(port);
  }

  /** Stops the server and deletes its objects. */
  @Override
  public void close() throws Exception {
    if (proxy != null) {
      proxy.stop();
    }
    try (java.util.stream.Stream<Path> files = Files.walk(dir)) {
      for (Path p : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }

  /** The blob store behind the server, with faults switched on and off by tests. */
  static final class FaultyBlobStore extends ForwardingBlobStore {
    /** While true, every write (PUT, part upload, multipart start and completion) fails. */
    volatile boolean refuseWrites;

    /** While positive, each request is answered 503 SlowDown and this is counted down. */
    final AtomicInteger throttleNext = new AtomicInteger();

    final AtomicLong refused = new AtomicLong();
    final AtomicLong throttled = new AtomicLong();
    final AtomicLong puts = new AtomicLong();
    final AtomicLong multipartUploads = new AtomicLong();
    final AtomicLong copies = new AtomicLong();

    /** Writes (PUTs and part uploads) being served now, and the most there ever were at once. */
    final AtomicInteger writesInFlight = new AtomicInteger();

    final AtomicInteger maxWritesInFlight = new AtomicInteger();

    FaultyBlobStore(BlobStore delegate) {
      super(delegate);
    }

    private void maybeFail(boolean write) {
      if (throttleNext.getAndUpdate(n -> n > 0 ? n - 1 : 0) > 0) {
        throttled.incrementAndGet();
        throw error(503, "SlowDown", "Please reduce your request rate.");
      }
      if (write && refuseWrites) {
        refused.incrementAndGet();
        throw error(500, "InternalError", "Injected: the store refuses writes.");
      }
    }

    private static S3Exception error(int status, String code, String message) {
      return (S3Exception)
          S3Exception.builder()
              .statusCode(status)
              .message(message)
              .awsErrorDetails(
                  AwsErrorDetails.builder()
                      .errorCode(code)
                      .errorMessage(message)
                      .sdkHttpResponse(SdkHttpResponse.builder().statusCode(status).build())
                      .build())
              .build();
    }

    @Override
    public PutObjectResponse putBlob(PutObjectRequest request, InputStream in) {
      maybeFail(true);
      puts.incrementAndGet();
      maxWritesInFlight.accumulateAndGet(writesInFlight.incrementAndGet(), Math::max);
      try {
        return super.putBlob(request, in);
      } finally {
        writesInFlight.decrementAndGet();
      }
    }

    @Override
    public MultipartUpload initiateMultipartUpload(CreateMultipartUploadRequest request) {
      maybeFail(true);
      multipartUploads.incrementAndGet();
      return super.initiateMultipartUpload(request);
    }

    @Override
    public UploadPartResponse uploadMultipartPart(
        MultipartUpload upload, UploadPartRequest request, InputStream in) {
      maybeFail(true);
      maxWritesInFlight.accumulateAndGet(writesInFlight.incrementAndGet(), Math::max);
      try {
        return super.uploadMultipartPart(upload, request, in);
      } finally {
        writesInFlight.decrementAndGet();
      }
    }

    @Override
    public CompleteMultipartUploadResponse completeMultipartUpload(
        MultipartUpload upload, CompleteMultipartUploadRequest request) {
      maybeFail(true);
      return super.completeMultipartUpload(upload, request);
    }

    @Override
    public CopyObjectResponse copyBlob(CopyObjectRequest request) {
      maybeFail(true);
      copies.incrementAndGet();
      return super.copyBlob(request);
    }

    @Override
    public HeadObjectResponse blobMetadata(HeadObjectRequest request) {
      maybeFail(false);
      return super.blobMetadata(request);
    }

    @Override
    public ResponseInputStream<GetObjectResponse> getBlob(GetObjectRequest request) {
      maybeFail(false);
      return super.getBlob(request);
    }

    @Override
    public ListObjectsV2Response list(ListObjectsV2Request request) {
      maybeFail(false);
      return super.list(request);
    }

    /**
     * A request's keys one after another, in its order. s3proxy deletes them on ten threads by
     * default, and its file-system store then races with itself: a directory marker ({@code a/}) is
     * a directory whose marker attribute is cleared when it still holds {@code a/b/}, and the
     * thread deleting {@code a/b/} leaves {@code a} behind if it looks before that. The empty
     * directory left over lists as the common prefix {@code a/} with no key under it, which S3
     * itself never shows: there are no directories in a bucket.
     */
    @Override
    public DeleteObjectsResponse removeBlobs(DeleteObjectsRequest request) {
      List<DeletedObject> deleted = new ArrayList<>();
      for (ObjectIdentifier object : request.delete().objects()) {
        removeBlob(request.bucket(), object.key());
        deleted.add(DeletedObject.builder().key(object.key()).build());
      }
      return DeleteObjectsResponse.builder().deleted(deleted).build();
    }
  }

  @Override
  public String toString() {
    return "S3Server[" + endpoint() + ", " + dir + "]";
  }
}
