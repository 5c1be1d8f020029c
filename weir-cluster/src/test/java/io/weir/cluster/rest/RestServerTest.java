package io.weir.cluster.rest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.handler.codec.http.HttpMethod;
import io.weir.cluster.rest.messages.JarRunResponse;
import io.weir.cluster.rest.messages.StopWithSavepointRequest;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.function.Function;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The REST server's routing and errors, with handlers of its own instead of a JobManager's. */
@Timeout(60)
class RestServerTest {

  private static final String SECRET = "s3cret";
  private static final HttpClient HTTP = HttpClient.newHttpClient();
  private static RestServer server;

  private record Handler(HttpMethod method, String path, Function<RestRequest, Object> answer)
      implements RestHandler {
    @Override
    public Object handle(RestRequest request) {
      return answer.apply(request);
    }
  }

  @BeforeAll
  static void start() throws Exception {
    server =
        new RestServer(
            new Router(
                List.of(
                    new Handler(
                        HttpMethod.GET,
                        "/jobs/:jobid",
                        r -> new JarRunResponse("job " + r.pathParameter("jobid"))),
                    new Handler(HttpMethod.GET, "/jobs/overview", r -> new JarRunResponse("all")),
                    new Handler(
                        HttpMethod.POST,
                        "/jobs/:jobid/stop",
                        r ->
                            new JarRunResponse(
                                r.body(StopWithSavepointRequest.class).targetDirectory())),
                    new Handler(
                        HttpMethod.GET,
                        "/bad",
                        r -> {
                          throw new IllegalArgumentException("No jar x: upload it first");
                        }),
                    new Handler(
                        HttpMethod.GET,
                        "/broken",
                        r -> {
                          throw new IllegalStateException("it broke");
                        }))),
            SECRET,
            "127.0.0.1",
            0);
  }

  @AfterAll
  static void stop() {
    server.close();
  }

  private static HttpResponse<String> get(String path) throws Exception {
    return HTTP.send(
        HttpRequest.newBuilder(uri(path)).GET().build(), HttpResponse.BodyHandlers.ofString());
  }

  private static HttpResponse<String> post(String path, String body, String secret)
      throws Exception {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(uri(path)).POST(HttpRequest.BodyPublishers.ofString(body));
    if (secret != null) {
      request.header("weir-secret", secret);
    }
    return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  private static URI uri(String path) {
    return URI.create("http://127.0.0.1:" + server.port() + path);
  }

  @Test
  void routesByMethodAndTemplateWithALiteralSegmentBeforeAParameter() throws Exception {
    assertThat(get("/jobs/abc").body()).isEqualTo("{\"jobid\":\"job abc\"}");
    assertThat(get("/jobs/overview").body()).isEqualTo("{\"jobid\":\"all\"}");
    assertThat(get("/jobs/abc?x=1").body()).isEqualTo("{\"jobid\":\"job abc\"}");
    assertThat(post("/jobs/abc/stop", "{\"targetDirectory\":\"/sp\"}", SECRET).body())
        .isEqualTo("{\"jobid\":\"/sp\"}");
    assertThat(post("/jobs/abc/stop", "", SECRET).body()).isEqualTo("{\"jobid\":null}");
  }

  @Test
  void aCallNoHandlerServesIs404NamingIt() throws Exception {
    HttpResponse<String> response = get("/jobs/abc/nothing");
    assertThat(response.statusCode()).isEqualTo(404);
    assertThat(response.body())
        .isEqualTo("{\"errors\":[\"No REST handler for GET /jobs/abc/nothing\"]}");
    assertThat(post("/jobs/abc", "", SECRET).statusCode()).isEqualTo(404);
  }

  @Test
  void malformedJsonIs400NamingTheProblem() throws Exception {
    HttpResponse<String> response = post("/jobs/abc/stop", "{\"targetDirectory\": ", SECRET);
    assertThat(response.statusCode()).isEqualTo(400);
    assertThat(response.body())
        .startsWith("{\"errors\":[\"The body of POST /jobs/abc/stop is not the JSON expected: ");

    HttpResponse<String> wrongShape = post("/jobs/abc/stop", "{\"drain\": {}}", SECRET);
    assertThat(wrongShape.statusCode()).isEqualTo(400);
    assertThat(wrongShape.body())
        .startsWith(
            "{\"errors\":[\"The body of POST /jobs/abc/stop is not the JSON expected at 'drain': ");
  }

  @Test
  void aFieldOfAnotherJsonTypeIs400NotConverted() throws Exception {
    // {"target-directory": 42} once wrote a savepoint into a directory "42".
    HttpResponse<String> number = post("/jobs/abc/stop", "{\"targetDirectory\": 42}", SECRET);
    assertThat(number.statusCode()).isEqualTo(400);
    assertThat(number.body())
        .startsWith(
            "{\"errors\":[\"The body of POST /jobs/abc/stop is not the JSON expected at"
                + " 'targetDirectory': ");
    HttpResponse<String> flag = post("/jobs/abc/stop", "{\"targetDirectory\": true}", SECRET);
    assertThat(flag.statusCode()).isEqualTo(400);
    HttpResponse<String> text = post("/jobs/abc/stop", "{\"drain\": \"yes\"}", SECRET);
    assertThat(text.statusCode()).isEqualTo(400);
    assertThat(text.body()).contains("at 'drain'");
  }

  @Test
  void aJsonBodyOverTheLimitIs413() throws Exception {
    String big = "{\"targetDirectory\": \"/" + "x".repeat(RestRequest.MAX_JSON_BYTES) + "\"}";
    HttpResponse<String> response = post("/jobs/abc/stop", big, SECRET);
    assertThat(response.statusCode()).isEqualTo(413);
    assertThat(response.body()).contains("a JSON body may have at most 1048576");
  }

  @Test
  void aChangeWithoutTheSecretIs401BeforeRouting() throws Exception {
    HttpResponse<String> response = post("/nowhere", "{}", "wrong");
    assertThat(response.statusCode()).isEqualTo(401);
    assertThat(response.body())
        .isEqualTo(
            "{\"errors\":[\"Wrong or missing cluster secret: send it in the weir-secret"
                + " header\"]}");
    assertThat(post("/jobs/abc/stop", "{}", null).statusCode()).isEqualTo(401);
  }

  @Test
  void badInputIs400AndAFailureIs500() throws Exception {
    HttpResponse<String> bad = get("/bad");
    assertThat(bad.statusCode()).isEqualTo(400);
    assertThat(bad.body()).isEqualTo("{\"errors\":[\"No jar x: upload it first\"]}");
    HttpResponse<String> broken = get("/broken");
    assertThat(broken.statusCode()).isEqualTo(500);
    assertThat(broken.body()).isEqualTo("{\"errors\":[\"it broke\"]}");
  }

  @Test
  void twoHandlersOfOneMethodAndPathAreRefused() {
    assertThatThrownBy(
            () ->
                new Router(
                    List.of(
                        new Handler(HttpMethod.GET, "/jobs/:jobid", r -> null),
                        new Handler(HttpMethod.GET, "/jobs/:id", r -> null))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("Two REST handlers for GET /jobs/:id");
  }
}
