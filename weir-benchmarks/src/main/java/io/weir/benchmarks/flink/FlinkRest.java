package io.weir.benchmarks.flink;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import org.apache.flink.api.common.JobID;

/**
 * The REST API of a Flink mini cluster (served without the web UI), as the Flink mains read
 * checkpoint statistics from it: {@link #configure} picks a free local port and writes the {@code
 * rest.*} settings into the job's configuration before the start; {@link #get} reads one answer as
 * JSON. Used from the main's own thread.
 */
public final class FlinkRest {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
  private final String baseUrl;

  private FlinkRest(int port) {
    this.baseUrl = "http://localhost:" + port;
  }

  /**
   * Serves the REST API on a free port of {@code localhost} (found just before the start) and keeps
   * up to 1000 checkpoints in its history (the default keeps the last 10).
   */
  public static FlinkRest configure(Map<String, String> settings) throws IOException {
    int port = freePort();
    settings.put("rest.address", "localhost");
    settings.put("rest.bind-address", "localhost");
    settings.put("rest.port", Integer.toString(port));
    settings.put("rest.bind-port", Integer.toString(port));
    settings.put("web.checkpoints.history", "1000");
    return new FlinkRest(port);
  }

  /** {@code http://localhost:<port>/jobs/<id>}. */
  public String jobUrl(JobID job) {
    return baseUrl + "/jobs/" + job;
  }

  /** GETs {@code url} and parses the answer; anything but 200 is an {@link IOException}. */
  public JsonNode get(String url) throws IOException, InterruptedException {
    HttpResponse<String> response =
        http.send(
            HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(30)).GET().build(),
            HttpResponse.BodyHandlers.ofString());
    if (response.statusCode() != 200) {
      throw new IOException(
          "GET " + url + " gave " + response.statusCode() + ": " + response.body());
    }
    return JSON.readTree(response.body());
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }
}
