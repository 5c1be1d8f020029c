package io.weir.fs.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.weir.api.StreamEnvironment;
import io.weir.api.config.Configuration;
import io.weir.api.functions.OpenContext;
import io.weir.api.functions.RichMapFunction;
import io.weir.runtime.storage.FileSystems;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** A missing bucket, wrong credentials and an endpoint that does not answer, each named. */
class S3BadInputTest {

  static S3Server server;

  @BeforeAll
  static void startServer() throws Exception {
    server = S3Server.start("present");
  }

  @AfterAll
  static void stopServer() throws Exception {
    if (server != null) {
      server.close();
    }
  }

  @AfterEach
  void forget() {
    FileSystems.closeAll();
  }

  @Test
  void aMissingBucketIsNamedWithTheUri() {
    URI uri = URI.create("s3://absent/weir/checkpoints");
    assertThatThrownBy(() -> FileSystems.checkAccess(uri, server.configuration()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("s3://absent/weir/checkpoints")
        .hasMessageContaining("bucket 'absent' does not exist");
  }

  @Test
  void wrongCredentialsAreNamedWithTheUriAndTheKeys() {
    URI uri = URI.create("s3://present/weir");
    assertThatThrownBy(
            () ->
                FileSystems.checkAccess(
                    uri, server.configuration().setString("s3.secret-key", "wrong")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("s3://present/weir")
        .hasMessageContaining("s3.secret-key")
        .hasMessageContaining("access key " + S3Server.ACCESS_KEY);
  }

  @Test
  void anEndpointThatDoesNotAnswerIsNamed() throws Exception {
    int port;
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = socket.getLocalPort();
    }
    URI uri = URI.create("s3://present/weir");
    assertThatThrownBy(
            () ->
                FileSystems.checkAccess(
                    uri,
                    server
                        .configuration()
                        .setString("s3.endpoint", "http://127.0.0.1:" + port)
                        .setString("s3.attempts.maximum", "2")
                        .setString("s3.retry.interval", "10 ms")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("s3://present/weir")
        .hasMessageContaining("http://127.0.0.1:" + port)
        .hasMessageContaining("s3.endpoint");
  }

  /** Counts how often it was opened, to prove that no task ran. */
  static final class OpenCounter extends RichMapFunction<Long, Long> {
    private static final long serialVersionUID = 1L;
    static final AtomicInteger OPENS = new AtomicInteger();

    @Override
    public void open(OpenContext openContext) {
      OPENS.incrementAndGet();
    }

    @Override
    public Long map(Long value) {
      return value;
    }
  }

  private static void submit(String storage, Configuration conf) throws Exception {
    StreamEnvironment env = StreamEnvironment.create();
    env.enableCheckpointing(Duration.ofMillis(100));
    env.getCheckpointConfig().setCheckpointStorage(storage);
    conf.toMap().forEach(env.getConfiguration()::setString);
    env.fromSequence(1, 10).map(new OpenCounter()).print();
    env.execute("bad-input");
  }

  @Test
  void aJobOnAMissingBucketIsRefusedBeforeAnyTaskRuns() {
    OpenCounter.OPENS.set(0);
    assertThatThrownBy(() -> submit("s3://absent/checkpoints", server.configuration()))
        .hasStackTraceContaining("s3://absent/checkpoints")
        .hasStackTraceContaining("bucket 'absent' does not exist");
    assertThat(OpenCounter.OPENS.get()).isZero();
  }

  @Test
  void aJobWithWrongCredentialsIsRefusedBeforeAnyTaskRuns() {
    OpenCounter.OPENS.set(0);
    assertThatThrownBy(
            () ->
                submit(
                    "s3://present/checkpoints",
                    server.configuration().setString("s3.access-key", "nobody")))
        .hasStackTraceContaining("s3://present/checkpoints")
        .hasStackTraceContaining("s3.access-key");
    assertThat(OpenCounter.OPENS.get()).isZero();
  }

  @Test
  void aJobOnAnUnknownSchemeIsRefusedNamingTheScheme() {
    assertThatThrownBy(() -> submit("gs://bucket/checkpoints", new Configuration()))
        .hasStackTraceContaining("gs://bucket/checkpoints")
        .hasStackTraceContaining("'gs'");
  }

  @Test
  void virtualHostStyleWhereBucketHostsDoNotResolveSuggestsPathStyle() {
    // present.localhost does not resolve here (an IP endpoint would make the SDK use path style).
    URI uri = URI.create("s3://present/weir");
    assertThatThrownBy(
            () ->
                FileSystems.checkAccess(
                    uri,
                    server
                        .configuration()
                        .setString("s3.endpoint", "http://localhost:" + server.port())
                        .setString("s3.path.style.access", "false")
                        .setString("s3.attempts.maximum", "1")))
        .hasMessageContaining("s3://present/weir")
        .hasMessageContaining("http://present.localhost:" + server.port())
        .hasMessageContaining("s3.path.style.access: true");
  }

  @Test
  void aUriWithoutBucketIsRefused() {
    assertThatThrownBy(() -> FileSystems.get(URI.create("s3:///weir"), server.configuration()))
        .hasMessageContaining("needs a bucket");
  }
}
