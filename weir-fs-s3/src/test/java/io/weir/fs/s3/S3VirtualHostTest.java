package io.weir.fs.s3;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.http.conn.DnsResolver;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Virtual-host-style requests ({@code http://<bucket>.localhost:<port>/<key>}) against a server
 * that answers them. The machine resolves no {@code *.localhost} names, so the test's DNS resolver
 * sends them to 127.0.0.1, and records which names the client asked for.
 */
class S3VirtualHostTest {

  static final String BUCKET = "vhost-bucket";
  static S3Server server;
  static final Set<String> resolved = ConcurrentHashMap.newKeySet();

  @BeforeAll
  static void startServer() throws Exception {
    server = S3Server.startWithVirtualHost("localhost", BUCKET);
  }

  @AfterAll
  static void stopServer() throws Exception {
    if (server != null) {
      server.close();
    }
  }

  @Test
  void virtualHostStyleReachesTheBucketByHostName() throws Exception {
    DnsResolver resolver =
        host -> {
          resolved.add(host);
          return new InetAddress[] {InetAddress.getLoopbackAddress()};
        };
    S3Settings settings =
        S3Settings.from(
            server
                .configuration()
                .setString("s3.endpoint", "http://localhost:" + server.port())
                .setString("s3.path.style.access", "false"));
    try (S3FileSystem fs = new S3FileSystem("s3", BUCKET, settings, resolver)) {
      try (OutputStream out = fs.create("/dir/file", false)) {
        out.write("virtual".getBytes(StandardCharsets.UTF_8));
      }
      try (InputStream in = fs.open("/dir/file")) {
        assertThat(new String(in.readAllBytes(), StandardCharsets.UTF_8)).isEqualTo("virtual");
      }
      assertThat(fs.list("/dir")).containsExactly("file");
      fs.checkAccess("/dir");
    }
    assertThat(resolved).contains(BUCKET + ".localhost").doesNotContain("localhost");
  }
}
