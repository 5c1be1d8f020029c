package io.weir.benchmarks.w8;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;

/** JSON over HTTP to a JobManager's REST API at {@code http://127.0.0.1:<port>}; one thread. */
final class Rest {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private final String base;

  Rest(int port) {
    this.base = "http://127.0.0.1:" + port;
  }

  JsonNode get(String path) throws IOException, InterruptedException {
    return send(HttpRequest.newBuilder(URI.create(base + path)).GET());
  }

  JsonNode postJson(String path, Object body) throws IOException, InterruptedException {
    return send(
        HttpRequest.newBuilder(URI.create(base + path))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofByteArray(JSON.writeValueAsBytes(body))));
  }

  JsonNode postJar(String path, Path jar) throws IOException, InterruptedException {
    return send(
        HttpRequest.newBuilder(URI.create(base + path))
            .header("Content-Type", "application/x-java-archive")
            .POST(HttpRequest.BodyPublishers.ofFile(jar)));
  }

  /** Whether the API answers 200 on {@code path} now. */
  boolean answers(String path) throws InterruptedException {
    try {
      get(path);
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  /** {@code bytes} read as JSON. */
  static JsonNode json(byte[] bytes) throws IOException {
    return JSON.readTree(bytes);
  }

  private JsonNode send(HttpRequest.Builder request) throws IOException, InterruptedException {
    HttpRequest built = request.timeout(Duration.ofSeconds(60)).build();
    HttpResponse<String> response = http.send(built, HttpResponse.BodyHandlers.ofString());
    if (response.statusCode() >= 300) {
      throw new IOException(
          built.method()
              + " "
              + built.uri()
              + " answered "
              + response.statusCode()
              + ": "
              + response.body());
    }
    return JSON.readTree(response.body());
  }
}
