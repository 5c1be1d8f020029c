package io.weir.cluster.rest.handlers;

import static org.assertj.core.api.Assertions.assertThat;

import io.weir.cluster.rest.RestServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The REST server serves the dashboard's built files from weir-dashboard's jar at {@code /} and
 * {@code /assets/...}, with their content types, and nothing a client's path names outside them.
 */
@Timeout(60)
class DashboardHandlersTest {

  private static final HttpClient HTTP = HttpClient.newHttpClient();
  private static RestServer server;

  @BeforeAll
  static void start() throws Exception {
    server = new RestServer(new JobManagerEndpoints(null, null).router(), null, "127.0.0.1", 0);
  }

  @AfterAll
  static void stop() {
    server.close();
  }

  private static HttpResponse<String> get(String path) throws Exception {
    return HTTP.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void theRootAnswersThePageAndItsAssetsTheirTypes() throws Exception {
    HttpResponse<String> page = get("/");

    assertThat(page.statusCode()).isEqualTo(200);
    assertThat(page.headers().firstValue("content-type")).hasValue("text/html; charset=utf-8");
    assertThat(page.headers().firstValue("cache-control")).hasValue("no-cache");
    assertThat(page.body()).contains("<main id=\"app\">");
    List<String> assets = new ArrayList<>();
    Matcher m = Pattern.compile("\"\\./(assets/[^\"]+)\"").matcher(page.body());
    while (m.find()) {
      assets.add(m.group(1));
    }
    assertThat(assets)
        .as("the page's script and style sheet")
        .anyMatch(a -> a.endsWith(".js"))
        .anyMatch(a -> a.endsWith(".css"));
    for (String asset : assets) {
      HttpResponse<String> file = get("/" + asset);
      assertThat(file.statusCode()).as(asset).isEqualTo(200);
      assertThat(file.body()).isNotEmpty();
      assertThat(file.headers().firstValue("content-type"))
          .hasValue(
              asset.endsWith(".js") ? "text/javascript; charset=utf-8" : "text/css; charset=utf-8");
      assertThat(file.headers().firstValue("cache-control").orElseThrow()).contains("immutable");
    }
  }

  @Test
  void anUnknownAssetOrPathIsTheApisJson404() throws Exception {
    HttpResponse<String> asset = get("/assets/index-nothere.js");
    assertThat(asset.statusCode()).isEqualTo(404);
    assertThat(asset.headers().firstValue("content-type")).hasValue("application/json");
    assertThat(asset.body()).contains("has no file /assets/index-nothere.js");

    HttpResponse<String> api = get("/jobs/x/nothing/here");
    assertThat(api.statusCode()).isEqualTo(404);
    assertThat(api.body()).contains("No REST handler for GET /jobs/x/nothing/here");
  }

  /** Sent as they are on a socket: an HTTP client would normalize some of them first. */
  @ParameterizedTest
  @ValueSource(
      strings = {
        "/assets/..",
        "/assets/%2e%2e",
        "/assets/..%2F..%2Fcluster%2Frest%2Fopenapi.json",
        "/assets/..%2f..%2f..%2f..%2f..%2f..%2fetc%2fpasswd",
        "/assets/../../cluster/rest/openapi.json",
        "/assets/.%2e/index.html",
        "/assets/..%5cindex.html",
        "/assets/index.html",
        "/assets/%2Fetc%2Fpasswd",
        "/../../../../etc/passwd",
      })
  void noPathReadsAnythingOutsideTheDashboardsAssets(String path) throws Exception {
    String response = rawGet(path);

    assertThat(response).as(path).startsWith("HTTP/1.1 404");
    assertThat(response).contains("application/json").doesNotContain("root:").doesNotContain("<");
    assertThat(response).doesNotContain("\"openapi\"");
  }

  private static String rawGet(String path) throws IOException {
    try (Socket socket = new Socket("127.0.0.1", server.port())) {
      OutputStream out = socket.getOutputStream();
      out.write(
          ("GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
              .getBytes(StandardCharsets.US_ASCII));
      out.flush();
      InputStream in = socket.getInputStream();
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }
}
