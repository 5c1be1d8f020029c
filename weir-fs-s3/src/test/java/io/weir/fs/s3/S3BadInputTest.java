package io.weir.fs.s3;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.weir.runtime.storage.FileSystems;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
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

  @Test
  void aUriWithoutBucketIsRefused() {
    assertThatThrownBy(() -> FileSystems.get(URI.create("s3:///weir"), server.configuration()))
        .hasMessageContaining("needs a bucket");
  }
}
