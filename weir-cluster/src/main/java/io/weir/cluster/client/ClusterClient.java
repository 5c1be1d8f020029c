package io.weir.cluster.client;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.weir.cluster.rest.messages.CancelJobResponse;
import io.weir.cluster.rest.messages.CheckpointTriggerRequest;
import io.weir.cluster.rest.messages.CheckpointTriggerStatus;
import io.weir.cluster.rest.messages.CheckpointingStatistics;
import io.weir.cluster.rest.messages.ErrorResponse;
import io.weir.cluster.rest.messages.JarRunRequest;
import io.weir.cluster.rest.messages.JarRunResponse;
import io.weir.cluster.rest.messages.JarUploadResponse;
import io.weir.cluster.rest.messages.JobDetails;
import io.weir.cluster.rest.messages.JobExceptions;
import io.weir.cluster.rest.messages.JobSummary;
import io.weir.cluster.rest.messages.JobsOverview;
import io.weir.cluster.rest.messages.RestJson;
import io.weir.cluster.rest.messages.SavepointStatus;
import io.weir.cluster.rest.messages.SavepointTriggerRequest;
import io.weir.cluster.rest.messages.StopWithSavepointRequest;
import io.weir.cluster.rest.messages.TaskManagersResponse;
import io.weir.cluster.rest.messages.TriggerResponse;
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
import java.util.List;
import java.util.Map;

/**
 * A client of the JobManager's REST API, as {@code weir run}, {@code weir list} and {@code weir
 * cancel} use it. It sends and reads the records of {@code rest.messages}, as the server does.
 * Failures name the address and what the JobManager answered.
 */
public final class ClusterClient {

  private static final ObjectMapper JSON = RestJson.MAPPER;

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

  private String send(HttpRequest request) throws IOException, InterruptedException {
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
    if (response.statusCode() >= 300) {
      ErrorResponse error;
      try {
        error = JSON.readValue(response.body(), ErrorResponse.class);
      } catch (IOException e) {
        throw noJson(response, e);
      }
      throw new RefusedException(
          address.toString(),
          request.method() + " " + request.uri().getPath(),
          response.statusCode(),
          error.errors() == null ? List.of() : error.errors());
    }
    return response.body();
  }

  /**
   * The JobManager answered a call with an error. The message names the call, for logs; {@link
   * #reasons()} are what the JobManager said, for a user.
   */
  public static final class RefusedException extends IOException {
    private static final long serialVersionUID = 1L;
    private final int status;
    private final List<String> reasons;

    RefusedException(String address, String call, int status, List<String> reasons) {
      super(
          "The JobManager at "
              + address
              + " refused "
              + call
              + " ("
              + status
              + "): "
              + String.join("; ", reasons));
      this.status = status;
      this.reasons = List.copyOf(reasons);
    }

    /** The HTTP status. */
    public int status() {
      return status;
    }

    /** What the JobManager gave as reasons. */
    public List<String> reasons() {
      return reasons;
    }
  }

  private IOException noJson(HttpResponse<String> response, IOException e) {
    return new IOException(
        "The JobManager at " + address + " answered " + response.statusCode() + " with no JSON", e);
  }

  /** Sends {@code request} and reads the reply as {@code type}. */
  private <T> T send(HttpRequest request, Class<T> type) throws IOException, InterruptedException {
    String body = send(request);
    try {
      return JSON.readValue(body, type);
    } catch (IOException e) {
      throw new IOException(
          "The JobManager at "
              + address
              + " answered "
              + request.method()
              + " "
              + request.uri().getPath()
              + " with JSON this client cannot read: "
              + e.getMessage(),
          e);
    }
  }

  private <T> T get(String path, Class<T> type) throws IOException, InterruptedException {
    return send(request(path).GET().build(), type);
  }

  private <T> T post(String path, Object body, Class<T> type)
      throws IOException, InterruptedException {
    return send(
        request(path)
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofByteArray(JSON.writeValueAsBytes(body)))
            .build(),
        type);
  }

  /** Uploads {@code jar}; returns its id. */
  public String upload(Path jar) throws IOException, InterruptedException {
    if (!Files.isRegularFile(jar)) {
      throw new IOException("No jar file at " + jar.toAbsolutePath());
    }
    return send(
            request("/jars/upload")
                .header("Content-Type", "application/x-java-archive")
                .header(
                    "Content-Disposition",
                    "attachment; filename=\""
                        + jar.getFileName().toString().replace("\"", "")
                        + "\"")
                .POST(HttpRequest.BodyPublishers.ofFile(jar))
                .build(),
            JarUploadResponse.class)
        .id();
  }

  /** Runs the program of jar {@code jarId}; returns the job's id. */
  public String run(
      String jarId,
      String entryClass,
      List<String> args,
      Integer parallelism,
      Map<String, String> settings)
      throws IOException, InterruptedException {
    JarRunRequest body = new JarRunRequest(entryClass, args, parallelism, settings, null);
    return post("/jars/" + jarId + "/run", body, JarRunResponse.class).jobid();
  }

  /**
   * {@code GET path}: the reply as it came, for a tool or test that reads a field no typed method
   * of this client offers.
   */
  public JsonNode get(String path) throws IOException, InterruptedException {
    String body = send(request(path).GET().build());
    try {
      return JSON.readTree(body);
    } catch (IOException e) {
      throw new IOException(
          "The JobManager at " + address + " answered GET " + path + " with no JSON", e);
    }
  }

  /** Every job's summary ({@code GET /jobs/overview}). */
  public List<JobSummary> jobs() throws IOException, InterruptedException {
    return get("/jobs/overview", JobsOverview.class).jobs();
  }

  /** A job's summary and exception history ({@code GET /jobs/:jobid}). */
  public JobDetails job(String jobId) throws IOException, InterruptedException {
    return get("/jobs/" + jobId, JobDetails.class);
  }

  /** A job's exception history ({@code GET /jobs/:jobid/exceptions}). */
  public JobExceptions exceptions(String jobId) throws IOException, InterruptedException {
    return get("/jobs/" + jobId + "/exceptions", JobExceptions.class);
  }

  /** A job's checkpoints ({@code GET /jobs/:jobid/checkpoints}). */
  public CheckpointingStatistics checkpoints(String jobId)
      throws IOException, InterruptedException {
    return get("/jobs/" + jobId + "/checkpoints", CheckpointingStatistics.class);
  }

  /** The TaskManagers ({@code GET /taskmanagers}). */
  public List<TaskManagersResponse.TaskManagerInfo> taskManagers()
      throws IOException, InterruptedException {
    return get("/taskmanagers", TaskManagersResponse.class).taskmanagers();
  }

  /**
   * Triggers a savepoint of {@code jobId} ({@code POST /jobs/:id/savepoints}) into {@code
   * directory} (null: the job's {@code execution.checkpointing.savepoint-dir}); returns the trigger
   * id to poll with {@link #awaitSavepoint}.
   */
  public String triggerSavepoint(String jobId, String directory)
      throws IOException, InterruptedException {
    return post(
            "/jobs/" + jobId + "/savepoints",
            new SavepointTriggerRequest(directory, false),
            TriggerResponse.class)
        .requestId();
  }

  /**
   * Stops {@code jobId} with a savepoint ({@code POST /jobs/:id/stop}); returns the trigger id to
   * poll with {@link #awaitSavepoint}.
   */
  public String stopWithSavepoint(String jobId, String directory, boolean drain)
      throws IOException, InterruptedException {
    return post(
            "/jobs/" + jobId + "/stop",
            new StopWithSavepointRequest(directory, drain),
            TriggerResponse.class)
        .requestId();
  }

  /** Where a savepoint or stop stands ({@code GET /jobs/:id/savepoints/:triggerid}). */
  public SavepointStatus savepointStatus(String jobId, String triggerId)
      throws IOException, InterruptedException {
    return get("/jobs/" + jobId + "/savepoints/" + triggerId, SavepointStatus.class);
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
      SavepointStatus status = savepointStatus(jobId, triggerId);
      if (status.completed()) {
        SavepointStatus.Operation operation = status.operation();
        if (operation != null && operation.location() != null) {
          return operation.location();
        }
        String reason =
            operation == null
                    || operation.failureCause() == null
                    || operation.failureCause().stackTrace() == null
                ? "no reason given"
                : operation.failureCause().stackTrace();
        throw new IOException("The savepoint of job " + jobId + " failed: " + reason);
      }
      progress.run();
      Thread.sleep(100); // polling the REST API, as Flink's client does
    }
  }

  /**
   * Triggers a checkpoint of {@code jobId} ({@code POST /jobs/:id/checkpoints}, Flink 1.19's);
   * returns the trigger id to poll with {@link #awaitCheckpoint}.
   *
   * @param checkpointType null for the job's configured kind, else Flink's {@code FULL}
   */
  public String triggerCheckpoint(String jobId, String checkpointType)
      throws IOException, InterruptedException {
    return post(
            "/jobs/" + jobId + "/checkpoints",
            new CheckpointTriggerRequest(checkpointType),
            TriggerResponse.class)
        .requestId();
  }

  /**
   * Polls {@code GET /jobs/:id/checkpoints/:triggerid} until the checkpoint ended.
   *
   * @return the checkpoint's id
   * @throws IOException with the JobManager's reason if it failed
   */
  public long awaitCheckpoint(String jobId, String triggerId)
      throws IOException, InterruptedException {
    while (true) {
      CheckpointTriggerStatus status =
          get("/jobs/" + jobId + "/checkpoints/" + triggerId, CheckpointTriggerStatus.class);
      if (status.completed()) {
        CheckpointTriggerStatus.Operation operation = status.operation();
        if (operation != null && operation.checkpointId() != null) {
          return operation.checkpointId();
        }
        throw new IOException(
            operation == null || operation.failureCause() == null
                ? "The checkpoint of job " + jobId + " failed: no reason given"
                : operation.failureCause().stackTrace());
      }
      Thread.sleep(100); // polling the REST API, as Flink's client does
    }
  }

  /** Cancels job {@code jobId} ({@code PATCH /jobs/:id}). */
  public void cancel(String jobId) throws IOException, InterruptedException {
    send(
        request("/jobs/" + jobId).method("PATCH", HttpRequest.BodyPublishers.noBody()).build(),
        CancelJobResponse.class);
  }
}
