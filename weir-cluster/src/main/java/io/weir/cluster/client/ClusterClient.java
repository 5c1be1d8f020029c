package io.weir.cluster.client;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.weir.cluster.rpc.HostPort;
import io.weir.cluster.rpc.Secrets;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A client of the JobManager's REST API, as {@code weir run}, {@code weir list} and {@code weir
 * cancel} use it. Failures name the address and what the JobManager answered.
 */
public final class ClusterClient {

  private static final ObjectMapper JSON = new ObjectMapper();

  private final HostPort address;
  private final String secret;
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  /**
   * A client of the REST API at {@code address}.
   *
   * @param secret the cluster's secret, or null
   */
  public ClusterClient(HostPort address, String secret) {
    this.address = address;
    this.secret = secret;
  }

  private HttpRequest.Builder request(String path) {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create("http://" + address + path))
            .timeout(Duration.ofMinutes(2));
    if (secret != null) {
      b.header(Secrets.HEADER, secret);
    }
    return b;
  }

  private JsonNode send(HttpRequest request) throws IOException, InterruptedException {
    HttpResponse<String> response;
    try {
      response = http.send(request, HttpResponse.BodyHandlers.ofString());
    } catch (ConnectException e) {
      throw new IOException(
          "Cannot reach the JobManager's REST API at "
              + address
              + ": is the JobManager running, and is "
              + address.port()
              + " its rest.port?",
          e);
    }
    JsonNode body;
    try {
      body = JSON.readTree(response.body());
    } catch (IOException e) {
      throw new IOException(
          "The JobManager at " + address + " answered " + response.statusCode() + " with no JSON",
          e);
    }
    if (response.statusCode() >= 300) {
      StringBuilder errors = new StringBuilder();
      body.path("errors")
          .forEach(m -> errors.append(errors.length() > 0 ? "; " : "").append(m.asText()));
      throw new IOException(
          "The JobManager at "
              + address
              + " refused "
              + request.method()
              + " "
              + request.uri().getPath()
              + " ("
              + response.statusCode()
              + "): "
              + errors);
    }
    return body;
  }

  /** Uploads {@code jar}; returns its id. */
  public String upload(Path jar) throws IOException, InterruptedException {
    if (!Files.isRegularFile(jar)) {
      throw new IOException("No jar file at " + jar.toAbsolutePath());
    }
    return send(request("/jars/upload")
            .header("Content-Type", "application/x-java-archive")
            .POST(HttpRequest.BodyPublishers.ofFile(jar))
            .build())
        .path("id")
        .asText();
  }

  /** Runs the program of jar {@code jarId}; returns the job's id. */
  public String run(
      String jarId,
      String entryClass,
      List<String> args,
      Integer parallelism,
      Map<String, String> settings)
      throws IOException, InterruptedException {
    Map<String, Object> body = new LinkedHashMap<>();
    if (entryClass != null) {
      body.put("entryClass", entryClass);
    }
    body.put("programArgsList", args);
    if (parallelism != null) {
      body.put("parallelism", parallelism);
    }
    body.put("configuration", settings);
    return send(request("/jars/" + jarId + "/run")
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofByteArray(JSON.writeValueAsBytes(body)))
            .build())
        .path("jobid")
        .asText();
  }

  /** {@code GET path}. */
  public JsonNode get(String path) throws IOException, InterruptedException {
    return send(request(path).GET().build());
  }

  /** Every job's summary ({@code GET /jobs/overview}). */
  public JsonNode jobs() throws IOException, InterruptedException {
    return get("/jobs/overview").path("jobs");
  }

  /** Cancels job {@code jobId}. */
  /**
   * Triggers a savepoint of {@code jobId} ({@code POST /jobs/:id/savepoints}) into {@code
   * directory} (null: the job's {@code execution.checkpointing.savepoint-dir}); returns the trigger
   * id to poll with {@link #awaitSavepoint}.
   */
  public String triggerSavepoint(String jobId, String directory)
      throws IOException, InterruptedException {
    Map<String, Object> body = new LinkedHashMap<>();
    if (directory != null) {
      body.put("target-directory", directory);
    }
    body.put("cancel-job", false);
    return post("/jobs/" + jobId + "/savepoints", body).path("request-id").asText();
  }

  /**
   * Stops {@code jobId} with a savepoint ({@code POST /jobs/:id/stop}); returns the trigger id to
   * poll with {@link #awaitSavepoint}.
   */
  public String stopWithSavepoint(String jobId, String directory, boolean drain)
      throws IOException, InterruptedException {
    Map<String, Object> body = new LinkedHashMap<>();
    if (directory != null) {
      body.put("targetDirectory", directory);
    }
    body.put("drain", drain);
    return post("/jobs/" + jobId + "/stop", body).path("request-id").asText();
  }

  /**
   * Polls {@code GET /jobs/:id/savepoints/:triggerid} until the operation ended, calling {@code
   * progress} after every poll that found it in progress.
   *
   * @return the savepoint's location
   * @throws IOException with the JobManager's reason if the savepoint failed
   */
  public String awaitSavepoint(String jobId, String triggerId, Runnable progress)
      throws IOException, InterruptedException {
    while (true) {
      JsonNode status = get("/jobs/" + jobId + "/savepoints/" + triggerId);
      if (status.path("status").path("id").asText().equals("COMPLETED")) {
        JsonNode operation = status.path("operation");
        if (operation.hasNonNull("location")) {
          return operation.get("location").asText();
        }
        throw new IOException(
            "The savepoint of job "
                + jobId
                + " failed: "
                + operation.path("failure-cause").path("stack-trace").asText("no reason given"));
      }
      progress.run();
      Thread.sleep(100); // polling the REST API, as Flink's client does
    }
  }

  private JsonNode post(String path, Object body) throws IOException, InterruptedException {
    return send(
        request(path)
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofByteArray(JSON.writeValueAsBytes(body)))
            .build());
  }

  public void cancel(String jobId) throws IOException, InterruptedException {
    send(request("/jobs/" + jobId).method("PATCH", HttpRequest.BodyPublishers.noBody()).build());
  }
}
